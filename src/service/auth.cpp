// Bearer tokens: only SHA-256 hashes are kept; a presented token is hashed and compared with every
// entry in constant time.
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <fstream>
#include <sstream>

#include "service/service.hpp"

namespace flowagent::service {

namespace {

std::array<unsigned char, 32> sha256(std::string_view data) {
  std::array<unsigned char, 32> out{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string hex(const unsigned char* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

}  // namespace

std::string token_hash_line(std::string_view token) {
  auto h = sha256(token);
  return "sha256:" + hex(h.data(), h.size());
}

std::string job_id(std::string_view change_id, std::int64_t revision) {
  std::string key(change_id);
  key += '\0';
  key += std::to_string(revision);
  auto h = sha256(key);
  return hex(h.data(), 10);
}

Expected<TokenStore> TokenStore::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(Errc::invalid_argument, "cannot read the token file " + file.string());
  std::stringstream ss;
  ss << in.rdbuf();
  auto store = parse(ss.str());
  if (!store) return fail(store.error().code, file.string() + ": " + store.error().message);
  return store;
}

Expected<TokenStore> TokenStore::parse(std::string_view text) {
  TokenStore store;
  std::istringstream in{std::string(text)};
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string digest, name, scopes, extra;
    if (!(words >> digest)) continue;
    const std::string where = "line " + std::to_string(lineno) + ": ";
    if (!(words >> name >> scopes)) return fail(Errc::invalid_argument, where + "expected `sha256:<hex> <name> <scopes>`");
    TokenEntry e;
    e.name = name;
    if (digest.size() != 7 + 64 || digest.compare(0, 7, "sha256:") != 0)
      return fail(Errc::invalid_argument, where + "the hash must be sha256:<64 hex digits> (flowagentd hash-token)");
    for (std::size_t i = 0; i < 32; ++i) {
      int hi = hex_value(digest[7 + 2 * i]), lo = hex_value(digest[8 + 2 * i]);
      if (hi < 0 || lo < 0) return fail(Errc::invalid_argument, where + "the hash is not hexadecimal");
      e.hash[i] = static_cast<unsigned char>(hi * 16 + lo);
    }
    std::istringstream sc(scopes);
    std::string s;
    while (std::getline(sc, s, ',')) {
      if (s == "submit") e.scopes |= scope_submit;
      else if (s == "read") e.scopes |= scope_read;
      else if (s == "admin") e.scopes |= scope_admin | scope_submit | scope_read;
      else return fail(Errc::invalid_argument, where + "unknown scope \"" + s + "\" (submit, read, admin)");
    }
    while (words >> extra) {
      auto eq = extra.find('=');
      const std::string key = extra.substr(0, eq);
      int value = 0;
      try {
        value = eq == std::string::npos ? -1 : std::stoi(extra.substr(eq + 1));
      } catch (const std::exception&) {
        value = -1;
      }
      if (value < 1) return fail(Errc::invalid_argument, where + "expected max_jobs=N or max_inflight=N (N >= 1): " + extra);
      if (key == "max_jobs") e.max_active_jobs = value;
      else if (key == "max_inflight") e.max_inflight = value;
      else return fail(Errc::invalid_argument, where + "unknown option " + key);
    }
    store.entries_.push_back(std::move(e));
  }
  if (store.entries_.empty()) return fail(Errc::invalid_argument, "the token file holds no token");
  return store;
}

const TokenEntry* TokenStore::verify(std::string_view token) const {
  if (token.empty()) return nullptr;
  const auto h = sha256(token);
  const TokenEntry* found = nullptr;
  for (const auto& e : entries_)  // every entry is compared: the time does not depend on which matched
    if (CRYPTO_memcmp(e.hash.data(), h.data(), h.size()) == 0) found = &e;
  return found;
}

}  // namespace flowagent::service
