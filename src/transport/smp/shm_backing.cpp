#include "transport/smp/shm_backing.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "util/config.hpp"
#include "util/strings.hpp"

namespace gexx::transport::smp {

namespace {

std::string tmpdir() {
  std::string dir = config::get_string("GASNET_TMPDIR");
  if (dir.empty()) {
    const char *t = std::getenv("TMPDIR");
    dir = (t && *t) ? t : "/tmp";
  }
  return dir;
}

std::string dir_of(Backing b) {
  return b == Backing::Shm ? "/dev/shm" : tmpdir();
}

uint64_t meminfo_kib(const char *key) {
  std::ifstream in("/proc/meminfo");
  std::string name;
  uint64_t value = 0;
  std::string unit;
  while (in >> name >> value) {
    std::getline(in, unit);
    if (name == key) return value;
  }
  return 0;
}

// The cgroup's remaining allowance, when a memory limit is set.
uint64_t cgroup_headroom() {
  std::ifstream max_in("/sys/fs/cgroup/memory.max"), cur_in("/sys/fs/cgroup/memory.current");
  std::string max_text;
  uint64_t cur = 0;
  if (!(max_in >> max_text) || max_text == "max" || !(cur_in >> cur)) return UINT64_MAX;
  uint64_t max = std::strtoull(max_text.c_str(), nullptr, 10);
  return max > cur ? max - cur : 0;
}

int open_unnamed_file(const std::string &dir, const std::string &job_id, std::string &error) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // No O_TMPFILE here: create a named file and unlink it at once. The
  // launcher sweeps "gexx-<job>-*" in case a rank dies in between.
  std::string path = dir + "/gexx-" + job_id + "-" + std::to_string(::getpid()) + "-XXXXXX";
  std::vector<char> buf(path.begin(), path.end());
  buf.push_back('\0');
  fd = ::mkostemp(buf.data(), O_CLOEXEC);
  if (fd < 0) {
    error = util::format("cannot create a file in %s: %s", dir.c_str(), std::strerror(errno));
    return -1;
  }
  ::unlink(buf.data());
  return fd;
}

}  // namespace

const char *backing_name(Backing b) {
  switch (b) {
    case Backing::Memfd:
      return "memfd";
    case Backing::Shm:
      return "shm";
    case Backing::File:
      return "file";
  }
  return "?";
}

std::vector<Backing> backings_from_config() {
  std::vector<Backing> out;
  for (const auto &name : config::get_list("GASNET_SHM_BACKING")) {
    if (name == "memfd")
      out.push_back(Backing::Memfd);
    else if (name == "shm")
      out.push_back(Backing::Shm);
    else
      out.push_back(Backing::File);
  }
  return out;
}

std::string backing_location(Backing b) {
  if (b == Backing::Memfd) return "anonymous memory (memfd)";
  return "an unnamed file in " + dir_of(b);
}

uint64_t backing_capacity(Backing b) {
  if (b == Backing::Memfd) {
    uint64_t avail = meminfo_kib("MemAvailable:") * 1024;
    return std::min(avail, cgroup_headroom());
  }
  struct statvfs st;
  if (::statvfs(dir_of(b).c_str(), &st) != 0) return 0;
  if (::access(dir_of(b).c_str(), W_OK) != 0) return 0;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

bool backing_on_disk(Backing b) {
  if (b == Backing::Memfd) return false;
  struct statfs st;
  if (::statfs(dir_of(b).c_str(), &st) != 0) return false;
  constexpr long kTmpfs = 0x01021994, kRamfs = 0x858458f6;
  return static_cast<long>(st.f_type) != kTmpfs && static_cast<long>(st.f_type) != kRamfs;
}

int create_region(Backing b, uint64_t size, const std::string &job_id, std::string &error) {
  int fd = -1;
  if (b == Backing::Memfd) {
    fd = ::memfd_create("gexx", MFD_CLOEXEC);
    if (fd < 0) {
      error = util::format("memfd_create failed: %s", std::strerror(errno));
      return -1;
    }
  } else {
    fd = open_unnamed_file(dir_of(b), job_id, error);
    if (fd < 0) return -1;
  }
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    error = util::format("cannot size %s to %s: %s", backing_location(b).c_str(),
                         util::human_size(size).c_str(), std::strerror(errno));
    ::close(fd);
    return -1;
  }
  if (b != Backing::Memfd) {
    // Reserve the blocks now: a full file system must fail here, with a
    // message, not later as SIGBUS on first touch.
    int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
    if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
      error = util::format("cannot reserve %s in %s: %s", util::human_size(size).c_str(),
                           backing_location(b).c_str(), std::strerror(rc));
      ::close(fd);
      return -1;
    }
  }
  return fd;
}

bool choose_backing(const std::vector<Backing> &order, uint64_t host_total, Backing &chosen,
                    std::string &why) {
  why.clear();
  for (Backing b : order) {
    uint64_t cap = backing_capacity(b);
    if (cap >= host_total) {
      chosen = b;
      return true;
    }
    why += util::format("%s%s has %s free", why.empty() ? "" : "; ", backing_location(b).c_str(),
                        util::human_size(cap).c_str());
  }
  return false;
}

Mapping::Mapping(int fd, uint64_t size) : size_(size) {
  if (size == 0) return;
  void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  addr_ = p == MAP_FAILED ? nullptr : p;
}

Mapping::~Mapping() {
  if (addr_) ::munmap(addr_, size_);
}

Mapping::Mapping(Mapping &&other) noexcept : addr_(other.addr_), size_(other.size_) {
  other.addr_ = nullptr;
  other.size_ = 0;
}

Mapping &Mapping::operator=(Mapping &&other) noexcept {
  if (this != &other) {
    if (addr_) ::munmap(addr_, size_);
    addr_ = other.addr_;
    size_ = other.size_;
    other.addr_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

}  // namespace gexx::transport::smp
