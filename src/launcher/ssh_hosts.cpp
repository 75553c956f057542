#include "launcher/ssh_hosts.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "util/config.hpp"

namespace gexx::launcher::ssh {

namespace {
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
}  // namespace

std::vector<std::string> parse_servers(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    if (c == ',' || is_space(c)) {
      if (!word.empty()) out.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

std::vector<std::string> parse_nodefile(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    line = line.substr(0, line.find('#'));
    size_t b = 0;
    while (b < line.size() && is_space(line[b])) ++b;
    size_t e = b;
    while (e < line.size() && !is_space(line[e])) ++e;
    if (e > b) out.emplace_back(line.substr(b, e - b));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> without_duplicates(const std::vector<std::string> &hosts) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (const auto &h : hosts)
    if (seen.insert(h).second) out.push_back(h);
  return out;
}

std::optional<std::vector<std::string>> split_words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (is_space(c)) {
      if (in_word) out.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (++i == text.size()) return std::nullopt;
      if (text[i] != '\n') word += text[i];
    } else if (c == '\'') {
      size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      word.append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      for (++i;; ++i) {
        if (i == text.size()) return std::nullopt;
        if (text[i] == '"') break;
        if (text[i] == '\\' && i + 1 < text.size() && std::strchr("\"\\$`", text[i + 1]) != nullptr)
          ++i;
        word += text[i];
      }
    } else {
      word += c;
    }
  }
  if (in_word) out.push_back(std::move(word));
  return out;
}

std::string shell_quote(std::string_view word) {
  bool plain = !word.empty();
  for (char c : word)
    if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr("@%_+=:,./-", c))
      plain = false;
  if (plain) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

HostsOrError hosts_from_environment() {
  HostsOrError r;
  std::string file = config::get_string("GASNET_SSH_NODEFILE");
  if (!file.empty()) {
    r.source = "GASNET_SSH_NODEFILE=" + file;
    std::ifstream in(file);
    if (!in) {
      r.error = "cannot read GASNET_SSH_NODEFILE '" + file + "': " + std::strerror(errno);
      return r;
    }
    std::stringstream text;
    text << in.rdbuf();
    r.hosts = parse_nodefile(text.str());
  } else {
    r.source = "GASNET_SSH_SERVERS";
    r.hosts = parse_servers(config::get_string("GASNET_SSH_SERVERS"));
    if (r.hosts.empty() && std::getenv("GASNET_SSH_SERVERS") == nullptr) {
      r.error = "the ssh spawner needs hosts: set GASNET_SSH_SERVERS or GASNET_SSH_NODEFILE";
      return r;
    }
  }
  if (!config::get_bool("GASNET_SSH_KEEPDUP")) r.hosts = without_duplicates(r.hosts);
  if (r.hosts.empty()) r.error = r.source + " names no host";
  return r;
}

std::vector<uint32_t> place_ranks(uint32_t ranks, uint32_t hosts, uint32_t used_hosts) {
  std::vector<uint32_t> out(ranks);
  if (used_hosts == 0) {
    for (uint32_t r = 0; r < ranks; ++r) out[r] = r % hosts;
    return out;
  }
  uint32_t base = ranks / used_hosts, extra = ranks % used_hosts;
  uint32_t r = 0;
  for (uint32_t h = 0; h < used_hosts; ++h)
    for (uint32_t k = 0; k < base + (h < extra ? 1 : 0); ++k) out[r++] = h;
  return out;
}

}  // namespace gexx::launcher::ssh
