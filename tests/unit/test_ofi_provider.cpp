// Which libfabric provider the ofi conduit takes when nobody names one.
#include <gtest/gtest.h>
#include <rdma/fabric.h>

#include <cstring>
#include <string>
#include <vector>

#include "transport/ofi/fabric.hpp"

using gexx::transport::ofi::default_provider;

namespace {
// An fi_getinfo-like list of entries named `names`, in that order.
struct List {
  explicit List(const std::vector<const char *> &names) {
    fi_info **tail = &head;
    for (const char *n : names) {
      fi_info *i = fi_allocinfo();
      i->fabric_attr->prov_name = ::strdup(n);
      *tail = i;
      tail = &i->next;
    }
  }
  ~List() { fi_freeinfo(head); }
  std::string pick() const { return default_provider(head)->fabric_attr->prov_name; }
  fi_info *head = nullptr;
};
}  // namespace

TEST(OfiDefaultProvider, EthernetTakesTheFastest) {
  EXPECT_EQ(
      List({"tcp;ofi_rxm", "tcp;ofi_rxm", "shm", "udp;ofi_rxd", "sockets", "net", "net;ofi_rxm"})
          .pick(),
      "net");
  // libfabric 1.18 on: tcp is net's code, with reliable datagrams of its own.
  EXPECT_EQ(List({"tcp;ofi_rxm", "tcp", "udp;ofi_rxd"}).pick(), "tcp");
  EXPECT_EQ(List({"sockets", "udp;ofi_rxd", "tcp;ofi_rxm"}).pick(), "tcp;ofi_rxm");
  EXPECT_EQ(List({"sockets", "udp;ofi_rxd"}).pick(), "udp;ofi_rxd");
}

TEST(OfiDefaultProvider, ANetworkOfItsOwnKeepsLibfabricsOrder) {
  EXPECT_EQ(List({"tcp;ofi_rxm", "verbs;ofi_rxm", "net", "cxi"}).pick(), "verbs;ofi_rxm");
  EXPECT_EQ(List({"shm", "cxi", "net"}).pick(), "cxi");
  EXPECT_EQ(List({"efa", "net"}).pick(), "efa");
}

TEST(OfiDefaultProvider, ShmOnlyWhenAlone) {
  EXPECT_EQ(List({"shm", "tcp;ofi_rxm"}).pick(), "tcp;ofi_rxm");
  EXPECT_EQ(List({"shm"}).pick(), "shm");
}

TEST(OfiDefaultProvider, FirstEntryOfTheChosenProvider) {
  // Entries of one provider come one per interface, libfabric's order kept.
  List l({"tcp;ofi_rxm", "net", "net"});
  EXPECT_EQ(default_provider(l.head), l.head->next);
}
