# Builds the client the way a GASNet client's own Makefile does: include the
# installed conduit fragment and use its variables, nothing else.
#   make -f <this file> GEXX_INSTALL=<prefix>     (run in any empty folder)

# Taken before the include below appends to MAKEFILE_LIST.
CLIENT_SRC := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))

ifndef GEXX_INSTALL
$(error set GEXX_INSTALL to the gexx install prefix)
endif
FRAGMENT = $(GEXX_INSTALL)/include/smp-conduit/smp-seq.mak
ifeq ($(wildcard $(FRAGMENT)),)
$(error $(FRAGMENT) is not installed)
endif
include $(FRAGMENT)

# The fragment finds its prefix from its own place; a wrong answer means the
# tree is not relocatable.
ifneq ($(GASNET_PREFIX),$(abspath $(GEXX_INSTALL)))
$(error smp-seq.mak computed GASNET_PREFIX=$(GASNET_PREFIX), expected $(abspath $(GEXX_INSTALL)))
endif

WARNINGS = -Wall -Wextra -Werror

client: client.o
	$(GASNET_LD) $(GASNET_LDFLAGS) -o $@ $^ $(GASNET_LIBS)

client.o: $(CLIENT_SRC)client.c
	$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) $(WARNINGS) -c -o $@ $<
