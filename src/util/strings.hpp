// String helpers shared by the library and the launcher.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gexx::util {

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string vformat(const char *fmt, va_list ap);

// "64 MiB", "1.5 GiB": sizes as people read them.
std::string human_size(uint64_t bytes);

std::vector<std::string> split(std::string_view text, std::string_view separators);

// The text without leading and trailing white space.
std::string trim(std::string_view text);

std::string hex(const uint8_t *bytes, size_t n);
bool unhex(std::string_view text, std::vector<uint8_t> &out);

}  // namespace gexx::util
