/* The C test program built as C++: the header must compile as both. */
#include "tools_check.c"
