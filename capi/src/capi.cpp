// The C API over the C++ Agent. No exception crosses this file's functions.
#include "flowagent/flowagent.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "flowagent/flowagent.hpp"

using namespace flowagent;

struct fa_agent {
  std::unique_ptr<Agent> agent;
};
struct fa_job {
  Job job;
};

namespace {

thread_local std::string g_last_error;

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

class CallbackSink final : public EventSink {
 public:
  CallbackSink(fa_event_cb cb, void* payload) : cb_(cb), payload_(payload) {}
  std::string_view name() const override { return "c_callback"; }
  void on_event(const Event& e) override { cb_(dump_json_lossy(to_json(e)).c_str(), payload_); }
  void on_result(const RepairResult&) override {}

 private:
  fa_event_cb cb_;
  void* payload_;
};

}  // namespace

extern "C" {

int fa_version_number(void) { return FA_VERSION_NUMBER; }
const char* fa_version_string(void) { return "0.1.0"; }
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
    default: return "FA_EUNKNOWN";
  }
}

void fa_string_free(char* str) { std::free(str); }

int fa_agent_options_init(fa_agent_options* opts, unsigned int version) {
  if (!opts) return set_error(FA_EINVAL, "opts is NULL");
  if (version != FA_AGENT_OPTIONS_VERSION)
    return set_error(FA_EUNSUPPORTED, "unknown fa_agent_options version " + std::to_string(version));
  *opts = fa_agent_options FA_AGENT_OPTIONS_INIT;
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
      o = *opts;
    }
    if (o.worker_threads < 0) return set_error(FA_EINVAL, "worker_threads must not be negative");
    AgentOptions options;
    options.worker_threads = o.worker_threads == 0 ? 2 : o.worker_threads;
    if (o.on_event) options.event_sink = std::make_shared<CallbackSink>(o.on_event, o.event_payload);
    auto agent = Agent::create(std::move(options));
    if (!agent) return from_error(agent.error());
    *out = new fa_agent{std::move(*agent)};
    return FA_OK;
  });
}

void fa_agent_free(fa_agent* agent) {
  try {
    delete agent;
  } catch (...) {
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
    if (timeout_ms < 0) {
      job->job.wait();
      return FA_OK;
    }
    if (job->job.wait_for(std::chrono::milliseconds(timeout_ms))) return FA_OK;
    return set_error(FA_ETIMEOUT, "the job is still running");
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
    if (!r) return set_error(FA_ETIMEOUT, "the job is still running");
    *out = dup_string(dump_json_lossy(to_json(*r)));
    if (!*out) return set_error(FA_EINTERNAL, "out of memory");
    return FA_OK;
  });
}

void fa_job_free(fa_job* job) { delete job; }

}  // extern "C"
