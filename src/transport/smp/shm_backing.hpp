// Unnamed shared memory: a descriptor that peers receive over the bootstrap
// and map. Nothing is ever left with a name in /dev/shm or on disk: memfd has
// no name, and the file backings use O_TMPFILE (or unlink at once).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gexx::transport::smp {

enum class Backing { Memfd, Shm, File };

const char *backing_name(Backing b);
std::vector<Backing> backings_from_config();  // GASNET_SHM_BACKING, in order

// Bytes the backing can still hold on this host (0 if it is unusable), and
// a human description of where it lives.
uint64_t backing_capacity(Backing b);
// True when `b` is a file on a disk file system (not tmpfs or ramfs).
bool backing_on_disk(Backing b);
std::string backing_location(Backing b);

// Creates an unnamed region of `size` bytes; -1 with `error` filled on failure.
int create_region(Backing b, uint64_t size, const std::string &job_id, std::string &error);

// The first backing in `order` that can hold `host_total` bytes; false and
// `why` listing each backing's capacity when none can.
bool choose_backing(const std::vector<Backing> &order, uint64_t host_total, Backing &chosen,
                    std::string &why);

// RAII mapping of a shared region.
class Mapping {
 public:
  Mapping() = default;
  Mapping(int fd, uint64_t size);  // addr() is null if mmap failed
  ~Mapping();
  Mapping(Mapping &&other) noexcept;
  Mapping &operator=(Mapping &&other) noexcept;
  Mapping(const Mapping &) = delete;
  Mapping &operator=(const Mapping &) = delete;

  void *addr() const { return addr_; }
  uint64_t size() const { return size_; }

 private:
  void *addr_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace gexx::transport::smp
