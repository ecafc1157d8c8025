#include "cli/args.hpp"

#include <charconv>
#include <limits>

namespace flowagent::cli {

ArgParser::ArgParser(std::string command, std::string synopsis, std::string about)
    : command_(std::move(command)), synopsis_(std::move(synopsis)), about_(std::move(about)) {}

ArgParser& ArgParser::section(std::string title) {
  section_ = std::move(title);
  return *this;
}

ArgParser& ArgParser::add(Option o) {
  o.section = section_;
  options_.push_back(std::move(o));
  return *this;
}

ArgParser& ArgParser::flag(std::string name, std::string help, bool& dst) {
  return add({std::move(name), "", std::move(help), "", false, [&dst](const std::string&) -> Expected<void> {
                dst = true;
                return {};
              }});
}

ArgParser& ArgParser::text(std::string name, std::string meta, std::string help, std::string& dst) {
  return custom(std::move(name), std::move(meta), std::move(help), [&dst](const std::string& v) -> Expected<void> {
    dst = v;
    return {};
  });
}

ArgParser& ArgParser::list(std::string name, std::string meta, std::string help, std::vector<std::string>& dst) {
  return custom(std::move(name), std::move(meta), std::move(help), [&dst](const std::string& v) -> Expected<void> {
    dst.push_back(v);
    return {};
  });
}

ArgParser& ArgParser::integer(std::string name, std::string meta, std::string help, std::int64_t& dst,
                              std::int64_t min, std::int64_t max) {
  return custom(std::move(name), std::move(meta), std::move(help), [&dst, min, max](const std::string& v) -> Expected<void> {
    auto n = parse_integer(v, min, max);
    if (!n) return unexpected(n.error());
    dst = *n;
    return {};
  });
}

ArgParser& ArgParser::size(std::string name, std::string meta, std::string help, std::uint64_t& dst) {
  return custom(std::move(name), std::move(meta), std::move(help), [&dst](const std::string& v) -> Expected<void> {
    auto n = parse_integer(v, 0, std::numeric_limits<std::int64_t>::max());
    if (!n) return unexpected(n.error());
    dst = static_cast<std::uint64_t>(*n);
    return {};
  });
}

ArgParser& ArgParser::custom(std::string name, std::string meta, std::string help,
                             std::function<Expected<void>(const std::string&)> apply) {
  return add({std::move(name), std::move(meta), std::move(help), "", true, std::move(apply)});
}

ArgParser& ArgParser::positional(std::string meta, std::string help, std::vector<std::string>& dst, std::size_t min,
                                 std::size_t max) {
  positional_meta_ = std::move(meta);
  positional_help_ = std::move(help);
  positional_ = &dst;
  positional_min_ = min;
  positional_max_ = max;
  return *this;
}

Expected<ArgParser::Outcome> ArgParser::parse(const std::vector<std::string>& args) const {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") return Outcome::help;
  std::size_t positionals = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() > 1 && a[0] == '-' && a != "-") {
      std::string name = a, value;
      bool inline_value = false;
      if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        inline_value = true;
      }
      const Option* opt = nullptr;
      for (const auto& o : options_)
        if (o.name == name) opt = &o;
      if (!opt) return fail(Errc::invalid_argument, command_ + ": unknown option " + name + " (see flowagent " + command_ + " --help)");
      if (!opt->takes_value) {
        if (inline_value) return fail(Errc::invalid_argument, command_ + ": " + name + " takes no value");
      } else if (!inline_value) {
        if (i + 1 >= args.size()) return fail(Errc::invalid_argument, command_ + ": " + name + " needs a value (" + opt->meta + ")");
        value = args[++i];
      }
      if (auto ok = opt->apply(value); !ok)
        return fail(Errc::invalid_argument, command_ + ": " + name + ": " + ok.error().message);
      continue;
    }
    if (!positional_ || positionals >= positional_max_)
      return fail(Errc::invalid_argument, command_ + ": unexpected argument " + a);
    positional_->push_back(a);
    ++positionals;
  }
  if (positional_ && positionals < positional_min_)
    return fail(Errc::invalid_argument, command_ + ": needs " + positional_meta_);
  return Outcome::run;
}

std::string ArgParser::help() const {
  std::string out = "usage: flowagent " + command_ + " " + synopsis_ + "\n" + about_ + "\n";
  if (positional_) out += "\n  " + positional_meta_ + std::string(positional_meta_.size() < 28 ? 28 - positional_meta_.size() : 1, ' ') + positional_help_ + "\n";
  std::string section = "\x01";
  for (const auto& o : options_) {
    if (o.section != section) {
      section = o.section;
      out += "\n" + (section.empty() ? std::string("options") : section) + ":\n";
    }
    std::string left = "  " + o.name + (o.meta.empty() ? "" : " " + o.meta);
    left += left.size() < 30 ? std::string(30 - left.size(), ' ') : std::string("\n") + std::string(30, ' ');
    out += left + o.help + "\n";
  }
  out += "  --help                      this text\n";
  return out;
}

Expected<std::int64_t> parse_integer(const std::string& text, std::int64_t min, std::int64_t max) {
  std::int64_t n = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc() || ptr != end)
    return fail(Errc::invalid_argument, "expected an integer, got '" + text + "'");
  if (n < min || n > max)
    return fail(Errc::invalid_argument, "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + text);
  return n;
}

}  // namespace flowagent::cli
