// The C API over the C++ Agent. No exception crosses this file's functions.
#include "flowagent/flowagent.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>

#include "flowagent/agent_config.hpp"
#include "flowagent/flowagent.hpp"

using namespace flowagent;

struct fa_buffer {
  std::string data;
};
struct fa_tool_context {
  const CancelToken* cancel;
};

namespace {
/// What an agent's callbacks share with its handle: once `closed` is set (fa_agent_free), no
/// callback of that agent reaches the host any more.
struct CallbackState {
  std::atomic<bool> closed{false};
};
}  // namespace

struct fa_agent {
  std::unique_ptr<Agent> agent;
  std::shared_ptr<CallbackState> callbacks;
};
struct fa_job {
  Job job;
};

namespace {

thread_local std::string g_last_error;
/// The agent whose callback runs on this thread (nullptr outside callbacks).
thread_local const CallbackState* g_in_callback = nullptr;

/// Marks the calling thread as being inside a host callback of `state`'s agent.
class CallbackScope {
 public:
  explicit CallbackScope(const CallbackState* state) : saved_(g_in_callback) { g_in_callback = state; }
  ~CallbackScope() { g_in_callback = saved_; }
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;

 private:
  const CallbackState* saved_;
};

/// Bytes of fa_agent_options that version `v` has (index: version).
constexpr std::array<std::size_t, FA_AGENT_OPTIONS_VERSION + 1> kAgentOptionsSize = {
    0, offsetof(fa_agent_options, change_tracker), offsetof(fa_agent_options, sandbox_json),
    offsetof(fa_agent_options, config_json), sizeof(fa_agent_options)};

/// Bytes of one fa_tool of version `v` (index: version): the stride of a host's tools array.
constexpr std::array<std::size_t, FA_TOOL_VERSION + 1> kToolSize = {
    0, offsetof(fa_tool, parameters_json_len), sizeof(fa_tool)};
static_assert(offsetof(fa_tool, parameters_json_len) % alignof(fa_tool) == 0,
              "a version-1 fa_tool array element is exactly the fields before parameters_json_len");

int set_error(int code, std::string message) {
  g_last_error = std::move(message);
  return code;
}

int from_error(const Error& e) { return set_error(-static_cast<int>(e.code), e.message); }

char* dup_string(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (!p) return nullptr;
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

template <class F>
int guarded(F&& f) {
  try {
    g_last_error.clear();
    return f();
  } catch (const std::bad_alloc&) {
    return set_error(FA_EINTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return set_error(FA_EINTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return set_error(FA_EINTERNAL, "internal error");
  }
}

/// {"failing_tests": [string...], "repo": string, "head": string, "base": string}: unknown members
/// and wrong types are errors. With "repo" the project context is read from that repository.
Expected<IntegrityOptions> integrity_options_from_json(std::string_view text) {
  auto doc = parse_json(text);
  if (!doc) return unexpected(doc.error());
  if (!doc->is_object()) return fail(Errc::schema, "options: expected an object");
  IntegrityOptions o;
  std::string repo, head, base;
  for (const auto& [key, value] : doc->as_object()) {
    if (key == "failing_tests") {
      if (!value.is_array()) return fail(Errc::schema, "options.failing_tests: expected an array of strings");
      for (const auto& t : value.as_array()) {
        if (!t.is_string()) return fail(Errc::schema, "options.failing_tests: expected an array of strings");
        o.failing_tests.push_back(t.as_string());
      }
    } else if (key == "repo" || key == "head" || key == "base") {
      if (!value.is_string() || value.as_string().empty())
        return fail(Errc::schema, "options." + key + ": expected a non-empty string");
      (key == "repo" ? repo : key == "head" ? head : base) = value.as_string();
    } else {
      return fail(Errc::schema, "options." + key + ": unknown field");
    }
  }
  if (repo.empty() && (!head.empty() || !base.empty()))
    return fail(Errc::schema, std::string("options.") + (head.empty() ? "base" : "head") + ": needs options.repo");
  if (!repo.empty()) {
    auto context = add_repository_context(o, repo, head, base);
    if (!context) return unexpected(with_context(context.error(), "options.repo"));
  }
  return o;
}

class CTracker final : public ChangeTracker {
 public:
  CTracker(fa_change_tracker t, std::shared_ptr<CallbackState> cb) : t_(t), cb_(std::move(cb)) {}
  std::string_view name() const override { return "c_change_tracker"; }
  Expected<ChangeState> state(const Change& change) override {
    int64_t current = change.revision;
    int submitted = 0, abandoned = 0;
    if (cb_->closed) return fail(Errc::cancelled, "the agent was freed");
    CallbackScope scope(cb_.get());
    int rc = t_.state(change.id.c_str(), change.revision, &current, &submitted, &abandoned, t_.payload);
    if (rc < 0) return fail(Errc::user, "the host's change tracker failed (" + std::to_string(rc) + ")");
    return ChangeState{current, submitted != 0, abandoned != 0};
  }

 private:
  fa_change_tracker t_;
  std::shared_ptr<CallbackState> cb_;
};

class CTool final : public Tool {
 public:
  CTool(const fa_tool& t, Json schema, std::shared_ptr<CallbackState> cb)
      : name_(t.name), description_(t.description ? t.description : ""), schema_(std::move(schema)),
        mutates_(t.mutates != 0), invoke_(t.invoke), payload_(t.payload), cb_(std::move(cb)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  const Json& parameters() const override { return schema_; }
  bool mutates() const override { return mutates_; }
  Expected<ToolOutput> invoke(const Json& args, ToolContext& ctx) override {
    fa_buffer out;
    fa_tool_context tc{&ctx.cancel};
    const std::string a = dump_json_lossy(args);
    if (cb_->closed) return fail(Errc::cancelled, "the agent was freed");
    int rc = 0;
    CallbackScope scope(cb_.get());
    rc = invoke_(a.c_str(), ctx.workspace.root().c_str(), &tc, &out, payload_);
    if (ctx.cancel.cancelled()) return fail(Errc::cancelled, "cancelled during tool " + name_);
    if (rc < 0) return fail(Errc::user, "tool " + name_ + " failed: " + sanitize_utf8(out.data));
    return ToolOutput{rc == 0, sanitize_utf8(out.data)};
  }

 private:
  std::string name_, description_;
  Json schema_;
  bool mutates_;
  decltype(fa_tool::invoke) invoke_;
  void* payload_;
  std::shared_ptr<CallbackState> cb_;
};

class CTransport final : public HttpTransport {
 public:
  CTransport(fa_transport t, std::shared_ptr<CallbackState> cb) : t_(t), cb_(std::move(cb)) {}
  Expected<HttpResponse> send(const HttpRequest& req, const CancelToken& cancel) override {
    if (cancel.cancelled()) return fail(Errc::cancelled, "cancelled");
    Json headers = Json::array();
    for (const auto& [k, v] : req.headers) headers.push_back(Json(Json::Array{k, v}));
    const std::string body = dump_json_lossy(
        Json::obj({{"method", req.method}, {"url", req.url}, {"headers", headers}, {"body", req.body}}));
    fa_buffer out;
    if (cb_->closed) return fail(Errc::cancelled, "the agent was freed");
    int rc = 0;
    {
      CallbackScope scope(cb_.get());
      rc = t_.send(body.c_str(), &out, t_.payload);
    }
    if (cancel.cancelled()) return fail(Errc::cancelled, "cancelled");
    if (rc < 0) return fail(Errc::io, "the host's transport failed (" + std::to_string(rc) + ")");
    auto doc = parse_json(out.data);
    if (!doc || !doc->is_object()) return fail(Errc::protocol, "the host's transport returned no JSON response");
    HttpResponse r;
    r.status = static_cast<int>(doc->get_int("status"));
    r.body = doc->get_string("body");
    if (const Json* h = doc->find("headers"); h && h->is_array())
      for (const auto& pair : h->as_array())
        if (pair.is_array() && pair.size() == 2 && pair.as_array()[0].is_string() && pair.as_array()[1].is_string()) {
          std::string name = pair.as_array()[0].as_string();
          for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          r.headers.emplace_back(name, pair.as_array()[1].as_string());
        }
    return r;
  }

 private:
  fa_transport t_;
  std::shared_ptr<CallbackState> cb_;
};

class CallbackSink final : public EventSink {
 public:
  CallbackSink(fa_event_cb cb, void* payload, std::shared_ptr<CallbackState> state)
      : cb_(cb), payload_(payload), state_(std::move(state)) {}
  std::string_view name() const override { return "c_callback"; }
  void on_event(const Event& e) override {
    if (state_->closed) return;
    const std::string doc = dump_json_lossy(to_json(e));
    CallbackScope scope(state_.get());
    cb_(doc.c_str(), payload_);
  }
  void on_result(const RepairResult&) override {}

 private:
  fa_event_cb cb_;
  void* payload_;
  std::shared_ptr<CallbackState> state_;
};

}  // namespace

extern "C" {

int fa_version_number(void) { return FA_VERSION_NUMBER; }
const char* fa_version_string(void) { return FA_VERSION_STRING; }
const char* fa_error_last(void) { return g_last_error.c_str(); }

const char* fa_error_name(int code) {
  switch (code) {
    case FA_OK: return "FA_OK";
    case FA_EINVAL: return "FA_EINVAL";
    case FA_EJSON: return "FA_EJSON";
    case FA_ESCHEMA: return "FA_ESCHEMA";
    case FA_EIO: return "FA_EIO";
    case FA_EPROCESS: return "FA_EPROCESS";
    case FA_ETIMEOUT: return "FA_ETIMEOUT";
    case FA_ECANCELLED: return "FA_ECANCELLED";
    case FA_EBUDGET: return "FA_EBUDGET";
    case FA_ENOTFOUND: return "FA_ENOTFOUND";
    case FA_ESANDBOX: return "FA_ESANDBOX";
    case FA_ETOOL: return "FA_ETOOL";
    case FA_EMODEL: return "FA_EMODEL";
    case FA_EPROTOCOL: return "FA_EPROTOCOL";
    case FA_EUNSUPPORTED: return "FA_EUNSUPPORTED";
    case FA_ECONFLICT: return "FA_ECONFLICT";
    case FA_EINTERNAL: return "FA_EINTERNAL";
    case FA_EUSER: return "FA_EUSER";
    case FA_ESANDBOXUNAVAIL: return "FA_ESANDBOXUNAVAIL";
    case FA_ENOTFIXED: return "FA_ENOTFIXED";
    case FA_EPENDING: return "FA_EPENDING";
    case FA_EREENTRANT: return "FA_EREENTRANT";
    default: return "FA_EUNKNOWN";
  }
}

void fa_string_free(char* str) { std::free(str); }

int fa_agent_options_init(fa_agent_options* opts, unsigned int version) {
  if (!opts) return set_error(FA_EINVAL, "opts is NULL");
  if (version < 1 || version > FA_AGENT_OPTIONS_VERSION)
    return set_error(FA_EUNSUPPORTED, "unknown fa_agent_options version " + std::to_string(version));
  const fa_agent_options defaults = FA_AGENT_OPTIONS_INIT;
  // A caller built against an older header has a shorter struct: write only its fields.
  std::memcpy(static_cast<void*>(opts), &defaults, kAgentOptionsSize[version]);
  opts->version = version;
  return FA_OK;
}

int fa_agent_create(fa_agent** out, const fa_agent_options* opts) {
  return guarded([&]() -> int {
    if (!out) return set_error(FA_EINVAL, "out is NULL");
    *out = nullptr;
    fa_agent_options o = FA_AGENT_OPTIONS_INIT;
    if (opts) {
      if (opts->version < 1 || opts->version > FA_AGENT_OPTIONS_VERSION)
        return set_error(FA_EUNSUPPORTED, "unknown fa_agent_options version " + std::to_string(opts->version));
      // Only the caller's version prefix is read; later fields keep their defaults.
      std::memcpy(static_cast<void*>(&o), opts, kAgentOptionsSize[opts->version]);
    }
    if (o.config_json_len > 0 && !o.config_json) return set_error(FA_EINVAL, "config_json_len > 0 but config_json is NULL");
    std::optional<AgentConfig> config;
    if (o.config_json) {
      auto c = parse_agent_config(std::string_view(o.config_json, o.config_json_len));
      if (!c) return from_error(c.error());
      if (c->sandbox && o.sandbox_json) return set_error(FA_EINVAL, "sandbox_json and config_json's sandbox are both set");
      config = std::move(*c);
    }
    auto callbacks = std::make_shared<CallbackState>();
    if (o.worker_threads < 0) return set_error(FA_EINVAL, "worker_threads must not be negative");
    AgentOptions options;
    options.worker_threads = o.worker_threads == 0 ? 2 : o.worker_threads;
    if (o.on_event) options.event_sink = std::make_shared<CallbackSink>(o.on_event, o.event_payload, callbacks);
    if (o.change_tracker) {
      if (o.change_tracker->version != FA_CHANGE_TRACKER_VERSION || !o.change_tracker->state)
        return set_error(FA_EUNSUPPORTED, "unknown fa_change_tracker version or missing state callback");
      options.change_tracker = std::make_shared<CTracker>(*o.change_tracker, callbacks);
    }
    if (o.tool_count > 0 && !o.tools) return set_error(FA_EINVAL, "tool_count > 0 but tools is NULL");
    if (o.tool_count > 0) {
      options.tools = default_agent_options().tools;
      // The array's stride is the size of the version tools[0] declares (a host built against an
      // older header passes smaller elements); every element must declare that same version.
      const unsigned int tool_version = o.tools[0].version;
      if (tool_version < 1 || tool_version > FA_TOOL_VERSION)
        return set_error(FA_EUNSUPPORTED, "unknown fa_tool version " + std::to_string(tool_version));
      const auto* base = reinterpret_cast<const unsigned char*>(o.tools);
      for (size_t i = 0; i < o.tool_count; ++i) {
        fa_tool t = FA_TOOL_INIT;
        std::memcpy(static_cast<void*>(&t), base + i * kToolSize[tool_version], kToolSize[tool_version]);
        if (t.version != tool_version)
          return set_error(FA_EINVAL, "fa_tool " + std::to_string(i) + " has version " + std::to_string(t.version) +
                                          " but tools[0] has " + std::to_string(tool_version) +
                                          " (one array holds one struct version)");
        if (!t.name || !t.invoke || !t.parameters_json)
          return set_error(FA_EINVAL, "fa_tool needs name, parameters_json and invoke");
        const std::string_view params = tool_version >= 2 ? std::string_view(t.parameters_json, t.parameters_json_len)
                                                          : std::string_view(t.parameters_json);
        if (params.find('\0') != std::string_view::npos)
          return set_error(FA_EJSON, std::string("tool ") + t.name + ": parameters_json holds a NUL byte");
        auto schema = parse_json(params);
        if (!schema) return set_error(FA_EJSON, std::string("tool ") + t.name + ": parameters_json: " + schema.error().message);
        if (auto added = options.tools->add(std::make_shared<CTool>(t, std::move(*schema), callbacks)); !added)
          return from_error(added.error());
      }
    }
    std::shared_ptr<HttpTransport> transport;
    if (o.transport) {
      if (o.transport->version != FA_TRANSPORT_VERSION || !o.transport->send)
        return set_error(FA_EUNSUPPORTED, "unknown fa_transport version or missing send callback");
      transport = std::make_shared<CTransport>(*o.transport, callbacks);  // the host authenticates; no key is read
    }
    if (o.trajectory_dir) options.trajectory_dir = o.trajectory_dir;
    if (o.sandbox_json) {
      auto doc = parse_json(o.sandbox_json);
      if (!doc) return set_error(FA_EJSON, "sandbox_json: " + doc.error().message);
      auto sandbox = sandbox_options_from_json(*doc);
      if (!sandbox) return from_error(sandbox.error());
      options.sandbox = std::move(*sandbox);
    }
    if (auto applied = apply_agent_config(options, config.value_or(AgentConfig{}), transport); !applied)
      return from_error(applied.error());
    auto agent = Agent::create(std::move(options));
    if (!agent) return from_error(agent.error());
    *out = new fa_agent{std::move(*agent), std::move(callbacks)};
    return FA_OK;
  });
}

void fa_agent_free(fa_agent* agent) {
  if (!agent) return;
  try {
    agent->callbacks->closed = true;
    if (g_in_callback == agent->callbacks.get()) {
      // Joining the workers here would join this very thread: cancel now, finish in the background
      // (the worker running this callback ends its job once the callback returns).
      agent->agent->cancel_all();
      std::thread([owned = std::move(agent->agent)]() mutable { owned.reset(); }).detach();
    }
    delete agent;
  } catch (...) {
    // Nothing useful to report from a void function; the handle is gone either way.
  }
}

int fa_request_validate(const char* request_json, size_t len) {
  return guarded([&]() -> int {
    if (!request_json) return set_error(FA_EINVAL, "request_json is NULL");
    auto req = parse_repair_request(std::string_view(request_json, len));
    if (!req) return from_error(req.error());
    return FA_OK;
  });
}

int fa_agent_submit(fa_job** out, fa_agent* agent, const char* request_json, size_t len) {
  return guarded([&]() -> int {
    if (!out) return set_error(FA_EINVAL, "out is NULL");
    *out = nullptr;
    if (!agent) return set_error(FA_EINVAL, "agent is NULL");
    if (!request_json) return set_error(FA_EINVAL, "request_json is NULL");
    auto req = parse_repair_request(std::string_view(request_json, len));
    if (!req) return from_error(req.error());
    auto job = agent->agent->submit(std::move(*req));
    if (!job) return from_error(job.error());
    *out = new fa_job{std::move(*job)};
    return FA_OK;
  });
}

int fa_job_wait(fa_job* job, int64_t timeout_ms) {
  return guarded([&]() -> int {
    if (!job) return set_error(FA_EINVAL, "job is NULL");
    if (timeout_ms != 0 && g_in_callback)
      return set_error(FA_EREENTRANT, "fa_job_wait with a timeout from inside a flowagent callback (poll with timeout 0)");
    if (timeout_ms < 0) {
      job->job.wait();
      return FA_OK;
    }
    if (job->job.wait_for(std::chrono::milliseconds(timeout_ms))) return FA_OK;
    return set_error(FA_EPENDING, "the job is still running");
  });
}

int fa_job_poll(fa_job* job, int* done) {
  return guarded([&]() -> int {
    if (!job || !done) return set_error(FA_EINVAL, "job or done is NULL");
    *done = job->job.done() ? 1 : 0;
    return FA_OK;
  });
}

int fa_job_cancel(fa_job* job) {
  return guarded([&]() -> int {
    if (!job) return set_error(FA_EINVAL, "job is NULL");
    job->job.cancel();
    return FA_OK;
  });
}

int fa_job_result_json(char** out, fa_job* job) {
  return guarded([&]() -> int {
    if (!out) return set_error(FA_EINVAL, "out is NULL");
    *out = nullptr;
    if (!job) return set_error(FA_EINVAL, "job is NULL");
    auto r = job->job.result();
    if (!r) return set_error(FA_EPENDING, "the job is still running");
    *out = dup_string(dump_json_lossy(to_json(*r)));
    if (!*out) return set_error(FA_EINTERNAL, "out of memory");
    return FA_OK;
  });
}

void fa_job_free(fa_job* job) { delete job; }

uint64_t fa_job_id(const fa_job* job) { return job ? job->job.id() : 0; }

uint64_t fa_current_job_id(void) { return current_job_id(); }

int fa_buffer_set(fa_buffer* buffer, const char* data, size_t len) {
  if (!buffer || (!data && len)) return set_error(FA_EINVAL, "buffer or data is NULL");
  buffer->data.assign(data ? data : "", len);
  return FA_OK;
}

int fa_tool_context_cancelled(const fa_tool_context* ctx) { return ctx && ctx->cancel && ctx->cancel->cancelled() ? 1 : 0; }

int fa_result_publish(char** out, const char* result_json, size_t len, const char* format, const char* options_json,
                      size_t options_len) {
  return guarded([&]() -> int {
    if (!out) return set_error(FA_EINVAL, "out is NULL");
    *out = nullptr;
    if (!result_json || !format) return set_error(FA_EINVAL, "result_json or format is NULL");
    auto result = parse_repair_result(std::string_view(result_json, len));
    if (!result) return from_error(result.error());
    if (!options_json && options_len) return set_error(FA_EINVAL, "options_len > 0 but options_json is NULL");
    PublishOptions o;
    if (options_json) {
      auto opt = publish_options_from_json(std::string_view(options_json, options_len));
      if (!opt) return from_error(opt.error());
      o = std::move(*opt);
    }
    auto text = publish(*result, format, o);
    if (!text) return from_error(text.error());
    *out = dup_string(*text);
    return *out ? FA_OK : set_error(FA_EINTERNAL, "out of memory");
  });
}

int fa_integrity_check(char** findings_json, const char* files_json, size_t len, const char* options_json,
                       size_t options_len) {
  return guarded([&]() -> int {
    if (!findings_json) return set_error(FA_EINVAL, "findings_json is NULL");
    *findings_json = nullptr;
    if (!files_json) return set_error(FA_EINVAL, "files_json is NULL");
    auto doc = parse_json(std::string_view(files_json, len));
    if (!doc) return from_error(doc.error());
    if (!doc->is_array()) return set_error(FA_ESCHEMA, "files: expected an array");
    std::vector<FileVersions> files;
    for (std::size_t i = 0; i < doc->as_array().size(); ++i) {
      const Json& f = doc->as_array()[i];
      const std::string where = "files[" + std::to_string(i) + "]";
      if (!f.is_object() || !f.find("path") || !f.find("path")->is_string())
        return set_error(FA_ESCHEMA, where + ".path: required string");
      FileVersions v;
      v.path = f.get_string("path");
      for (const char* key : {"before", "after"}) {
        const Json* x = f.find(key);
        if (x && !x->is_null() && !x->is_string()) return set_error(FA_ESCHEMA, where + "." + key + ": expected a string or null");
        if (x && x->is_string()) (std::string_view(key) == "before" ? v.before : v.after) = x->as_string();
      }
      files.push_back(std::move(v));
    }
    if (!options_json && options_len) return set_error(FA_EINVAL, "options_len > 0 but options_json is NULL");
    IntegrityOptions o;
    if (options_json) {
      auto opt = integrity_options_from_json(std::string_view(options_json, options_len));
      if (!opt) return from_error(opt.error());
      o = std::move(*opt);
    }
    Json out = Json::array();
    for (const auto& f : check_test_integrity(files, o))
      out.push_back(Json::obj({{"rule", f.rule}, {"path", f.path}, {"line", f.line}, {"message", f.message}}));
    *findings_json = dup_string(dump_json_lossy(out));
    return *findings_json ? FA_OK : set_error(FA_EINTERNAL, "out of memory");
  });
}

int fa_result_apply(char** report_json, const char* repo, const char* result_json, size_t len) {
  return guarded([&]() -> int {
    if (report_json) *report_json = nullptr;
    if (!repo || !result_json) return set_error(FA_EINVAL, "repo or result_json is NULL");
    auto result = parse_repair_result(std::string_view(result_json, len));
    if (!result) return from_error(result.error());
    auto r = apply_fix(repo, *result);
    if (!r) return from_error(r.error());
    if (report_json) {
      Json files = Json::array();
      for (const auto& f : r->files) files.push_back(f);
      *report_json = dup_string(dump_json_lossy(Json::obj({{"three_way", r->three_way}, {"files", files}, {"message", r->message}})));
    }
    return FA_OK;
  });
}

}  // extern "C"
