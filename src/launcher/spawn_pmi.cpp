// gasnetrun -spawner=pmi: runs the job under Slurm's srun (or the command in
// GASNET_PMI_LAUNCHER), whose PMIx server the ranks join.
#include <cstdlib>

#include "launcher/spawn_cmd.hpp"
#include "util/strings.hpp"

namespace gexx::launcher {

int run_pmi_spawner(const JobOptions &o) {
  auto argv = command_words(o, "GASNET_PMI_LAUNCHER", {"srun"});
  std::string base = argv[0].substr(argv[0].rfind('/') + 1);
  bool srun = base == "srun";
  auto given = [&](const char *prefix) {
    for (size_t i = 1; i < argv.size(); ++i)
      if (argv[i].rfind(prefix, 0) == 0) return true;
    return false;
  };
  argv.insert(argv.end(), {"-n", std::to_string(o.ranks)});
  if (o.used_hosts > 0) argv.insert(argv.end(), {"-N", std::to_string(o.used_hosts)});
  if (srun) {
    // PMIx, as the ranks speak it. A rank that fails ends the ranks of its
    // host (bootstrap/pmix.cpp); add -K for those of other hosts.
    if (!given("--mpi")) argv.emplace_back("--mpi=pmix");
  }
  argv.push_back(o.program);
  argv.insert(argv.end(), o.argv.begin() + 1, o.argv.end());
  std::vector<std::pair<std::string, std::string>> env = {{"GASNET_SPAWNFN", "P"}};
  if (o.verbose) env.emplace_back("GASNET_VERBOSEENV", "1");
  return run_launcher_command(o, argv, env, "GASNET_PMI_LAUNCHER");
}

}  // namespace gexx::launcher
