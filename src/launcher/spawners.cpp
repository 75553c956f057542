// The spawner table: one row per way of starting ranks.
#include <cstdio>
#include <cstdlib>

#include "launcher/spawner.hpp"

#include "util/strings.hpp"

namespace gexx::launcher {

JobKeys new_job_keys() {
  JobKeys k;
  random_bytes(k.secret, kSecretBytes);
  k.id = new_job_id();
  return k;
}

// Each spawner's entry point, defined in its own file.
int run_local_job(const JobOptions &o);    // local_job.cpp
int run_ssh_spawner(const JobOptions &o);  // ssh_job.cpp
int run_mpi_spawner(const JobOptions &o);  // spawn_mpi.cpp
int run_pmi_spawner(const JobOptions &o);  // spawn_pmi.cpp

const std::vector<Spawner> &spawners() {
  static const std::vector<Spawner> table = {
      {"local", 'L', "fork the ranks on this host (the default)", run_local_job},
      {"ssh", 'S', "an agent on each host of GASNET_SSH_SERVERS forks its ranks", run_ssh_spawner},
      {"mpi", 'M', "mpirun (or GASNET_MPIRUN_CMD) starts the ranks; they join through PMIx",
       run_mpi_spawner},
      {"pmi", 'P', "srun --mpi=pmix (or GASNET_PMI_LAUNCHER) starts the ranks through PMIx",
       run_pmi_spawner},
  };
  return table;
}

const Spawner *find_spawner(std::string_view name) {
  for (const auto &s : spawners())
    if (name == s.name) return &s;
  return nullptr;
}

const Spawner *find_spawner_by_letter(char spawnfn) {
  for (const auto &s : spawners())
    if (spawnfn == s.spawnfn || spawnfn == s.spawnfn - 'A' + 'a') return &s;
  return nullptr;
}

namespace {
template <class Item>
std::string listed(Item item) {
  std::string out;
  const auto &all = spawners();
  for (size_t i = 0; i < all.size(); ++i) {
    if (i > 0) out += i + 1 == all.size() ? " or " : ", ";
    out += item(all[i]);
  }
  return out;
}
}  // namespace

std::string spawner_names() {
  return listed([](const Spawner &s) { return std::string(s.name); });
}

std::string spawner_letters() {
  return listed([](const Spawner &s) { return std::string(1, s.spawnfn) + " (" + s.name + ")"; });
}

void usage_error(const std::string &who, const std::string &msg) {
  std::fprintf(stderr, "%s: %s\n(run '%s --help' for usage)\n", who.c_str(), msg.c_str(),
               who.c_str());
  std::exit(2);
}

}  // namespace gexx::launcher
