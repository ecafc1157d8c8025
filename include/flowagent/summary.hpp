// flowagent/summary.hpp: built-in summarizers and the HTML sanitizer their output goes through.
// [Threading] reentrant; summarizers are stateless and shared by concurrent jobs. [Errors] none.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "flowagent/strategy.hpp"

namespace flowagent {

/// Escapes &, <, >, " and ' for HTML text and attribute context.
std::string html_escape(std::string_view text);

/// A summarizer that needs no model: root cause from the candidate's explanation, then what the
/// patch touched and which tests now pass. Used as the fallback of the model summarizer.
std::shared_ptr<Summarizer> make_template_summarizer();

/// One HTML sentence saying which requested failing test was replaced by which tests
/// (evidence.replacements), e.g. "<code>t[a]</code> was replaced by <code>t2[a]</code>."; empty
/// when nothing was replaced. Both built-in summarizers include it.
std::string describe_replacements(const Evidence& evidence);

}  // namespace flowagent
