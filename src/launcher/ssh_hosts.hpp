// What the ssh spawner decides before it connects anywhere: the hosts of a
// job (GASNET_SSH_SERVERS, GASNET_SSH_NODEFILE), how the remote shell is
// invoked (GASNET_SSH_CMD, GASNET_SSH_OPTIONS), and which rank runs where.
// Pure functions, unit tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gexx::launcher::ssh {

// Hosts separated by commas and/or white space, as GASNET_SSH_SERVERS has them.
std::vector<std::string> parse_servers(std::string_view text);
// A node file: one host per line (its first word); blank lines and text after
// '#' are ignored.
std::vector<std::string> parse_nodefile(std::string_view text);
// Keeps the first occurrence of each host (GASNET_SSH_KEEPDUP=0).
std::vector<std::string> without_duplicates(const std::vector<std::string> &hosts);

// Splits a command line as a POSIX shell would split words: single quotes,
// double quotes (with \" \\ \$ \` escapes) and backslashes; nothing is
// expanded. nullopt when a quote is left open or a backslash ends the text.
std::optional<std::vector<std::string>> split_words(std::string_view text);
// Quotes `word` for a POSIX shell (the remote side of ssh runs one).
std::string shell_quote(std::string_view word);

struct HostsOrError {
  std::vector<std::string> hosts;
  std::string source;  // "GASNET_SSH_NODEFILE=/path" or "GASNET_SSH_SERVERS"
  std::string error;   // non-empty: nothing usable, says why
};
// The job's hosts from the environment: the node file when
// GASNET_SSH_NODEFILE is set (it wins over GASNET_SSH_SERVERS), duplicates
// dropped unless GASNET_SSH_KEEPDUP is set.
HostsOrError hosts_from_environment();

// The host index of every rank. With `used_hosts` 0, ranks go round-robin
// over all `hosts` (rank r on host r % hosts); otherwise the first
// `used_hosts` hosts each take a block of consecutive ranks, the first
// ranks % used_hosts of them one rank more than the others.
std::vector<uint32_t> place_ranks(uint32_t ranks, uint32_t hosts, uint32_t used_hosts);

}  // namespace gexx::launcher::ssh
