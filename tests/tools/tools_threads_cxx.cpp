/* The threaded cases built as C++. */
#include "tools_threads.c"
