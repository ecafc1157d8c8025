#define _POSIX_C_SOURCE 200809L
/* The C API used from C: the header must compile as C11, and every call must behave on bad input. */
#include <flowagent/flowagent.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int failures = 0;
#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                     \
    }                                                                 \
  } while (0)

static int events = 0;
static int on_event(const char *json, void *payload) {
  CHECK(json != NULL && strstr(json, "flowagent.event/v1") != NULL);
  CHECK(payload == &events);
  events++;
  return 0;
}

static const char *REQUEST_BOT =
    "{\"schema\":\"flowagent.repair_request/v1\",\"repository\":\"/nonexistent\","
    "\"change\":{\"id\":\"c1\",\"revision\":1,\"base_commit\":\"a\",\"head_commit\":\"b\","
    "\"author\":{\"name\":\"renovate[bot]\",\"kind\":\"bot\"}},"
    "\"failure\":{\"kind\":\"test\",\"failing_tests\":[\"T.x\"]}}";

/* ---- a scripted model behind the host transport ---- */
static int transport_calls = 0;
static const char *REPLY_TOOL =
    "{\"status\":200,\"headers\":[[\"Content-Type\",\"application/json\"]],\"body\":"
    "\"{\\\"choices\\\":[{\\\"finish_reason\\\":\\\"tool_calls\\\",\\\"message\\\":{\\\"role\\\":\\\"assistant\\\","
    "\\\"tool_calls\\\":[{\\\"id\\\":\\\"c1\\\",\\\"type\\\":\\\"function\\\",\\\"function\\\":{\\\"name\\\":\\\"%s\\\","
    "\\\"arguments\\\":\\\"%s\\\"}}]}}],\\\"usage\\\":{\\\"prompt_tokens\\\":10,\\\"completion_tokens\\\":5}}\"}";
static const char *REPLY_TEXT =
    "{\"status\":200,\"headers\":[],\"body\":"
    "\"{\\\"choices\\\":[{\\\"finish_reason\\\":\\\"stop\\\",\\\"message\\\":{\\\"role\\\":\\\"assistant\\\","
    "\\\"content\\\":\\\"%s\\\"}}],\\\"usage\\\":{\\\"prompt_tokens\\\":10,\\\"completion_tokens\\\":5}}\"}";

static const char *script_mode = "fix"; /* "fix" or "slow" */

static int send_cb(const char *request_json, fa_buffer *response, void *payload) {
  char buf[4096];
  (void)payload;
  CHECK(strstr(request_json, "/chat/completions") != NULL);
  transport_calls++;
  if (strstr(request_json, "You write the note") != NULL) {
    snprintf(buf, sizeof buf, REPLY_TEXT, "<b>Root cause:</b> v.txt held 2.");
  } else if (strcmp(script_mode, "slow") == 0) {
    snprintf(buf, sizeof buf, REPLY_TOOL, "slow", "{}");
  } else if (transport_calls == 1) {
    snprintf(buf, sizeof buf, REPLY_TOOL, "shout", "{\\\\\\\"text\\\\\\\":\\\\\\\"hi\\\\\\\"}");
  } else if (transport_calls == 2) {
    snprintf(buf, sizeof buf, REPLY_TOOL, "edit_file",
             "{\\\\\\\"path\\\\\\\":\\\\\\\"v.txt\\\\\\\",\\\\\\\"old_text\\\\\\\":\\\\\\\"2\\\\\\\","
             "\\\\\\\"new_text\\\\\\\":\\\\\\\"1\\\\\\\"}");
  } else {
    snprintf(buf, sizeof buf, REPLY_TEXT, "v.txt must hold 1.");
  }
  return fa_buffer_set(response, buf, strlen(buf));
}

static int shouted = 0;
static int shout_cb(const char *args_json, const char *root, const fa_tool_context *ctx, fa_buffer *out, void *payload) {
  (void)ctx;
  (void)payload;
  CHECK(strstr(args_json, "\"text\":\"hi\"") != NULL);
  CHECK(root != NULL && root[0] == '/');
  shouted++;
  return fa_buffer_set(out, "HI", 2);
}

static atomic_int slow_started = 0;
static int slow_cb(const char *args_json, const char *root, const fa_tool_context *ctx, fa_buffer *out, void *payload) {
  int i;
  (void)args_json;
  (void)root;
  (void)payload;
  slow_started = 1;
  for (i = 0; i < 1000 && !fa_tool_context_cancelled(ctx); ++i) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return fa_buffer_set(out, "slow done", 9);
}

static int tracker_fail = 0;
static int tracker_calls = 0;
static int state_cb(const char *change_id, int64_t revision, int64_t *current, int *submitted, int *abandoned, void *payload) {
  (void)change_id;
  (void)payload;
  tracker_calls++;
  if (tracker_fail) return -1;
  *current = revision;
  *submitted = 0;
  *abandoned = 0;
  return 0;
}

static int pending_wait_rc = 0, pending_result_rc = 0;
static void *cancel_later(void *job) {
  int i;
  char *result = NULL;
  for (i = 0; i < 500 && !slow_started; ++i) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  /* the slow tool is running: the job has certainly not ended */
  pending_wait_rc = fa_job_wait((fa_job *)job, 10);
  pending_result_rc = fa_job_result_json(&result, (fa_job *)job);
  fa_job_cancel((fa_job *)job);
  return NULL;
}

static char *read_whole(const char *path) {
  FILE *f = fopen(path, "rb");
  long n;
  char *buf;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = (char *)malloc((size_t)n + 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
  buf[n] = 0;
  fclose(f);
  return buf;
}

static void full_path_tests(void) {
  char dir[] = "/tmp/flowagent-capi-XXXXXX";
  char cmd[2048], request[4096];
  char *base, *head, *result = NULL, *published = NULL, *report = NULL;
  fa_agent *agent = NULL;
  fa_job *job = NULL;
  fa_agent_options opts;
  fa_change_tracker tracker = {FA_CHANGE_TRACKER_VERSION, state_cb, NULL};
  fa_transport transport = {FA_TRANSPORT_VERSION, send_cb, NULL};
  /* version 2: parameters_json is (pointer, length): the slow tool's schema is followed by bytes
   * that are not JSON, which flowagent must not read. */
  static const char shout_schema[] = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}";
  static const char slow_schema[] = "{\"type\":\"object\"} not JSON";
  fa_tool tools[2] = {
      {FA_TOOL_VERSION, "shout", "Shouts.", shout_schema, 0, shout_cb, NULL, sizeof shout_schema - 1},
      {FA_TOOL_VERSION, "slow", "Takes long.", slow_schema, 0, slow_cb, NULL, 17}};
  /* version 1, as a host built against the version-1 header lays it out (a smaller element). */
  struct tool_v1 {
    unsigned int version;
    const char *name, *description, *parameters_json;
    int mutates;
    int FA_CALLBACK(invoke)(const char *, const char *, const fa_tool_context *, fa_buffer *, void *);
    void *payload;
  } tools_v1[2] = {{1, "shout", "Shouts.", shout_schema, 0, shout_cb, NULL},
                   {1, "slow", "Takes long.", "{\"type\":\"object\"}", 0, slow_cb, NULL}};
  pthread_t th;

  CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd,
           "cd %s && git init -q -b main r && cd r && echo 1 > v.txt && git add v.txt && "
           "git -c user.name=a -c user.email=b commit -qm one && git rev-parse HEAD > ../base && echo 2 > v.txt && printf 'a\\nb\\nc\\n' > w.txt && git add w.txt && "
           "git -c user.name=a -c user.email=b commit -qam two && git rev-parse HEAD > ../head", dir);
  CHECK(system(cmd) == 0);
  snprintf(cmd, sizeof cmd, "%s/base", dir);
  base = read_whole(cmd);
  snprintf(cmd, sizeof cmd, "%s/head", dir);
  head = read_whole(cmd);
  base[40] = 0;
  head[40] = 0;
  snprintf(request, sizeof request,
           "{\"schema\":\"flowagent.repair_request/v1\",\"repository\":\"%s/r\",\"change\":{\"id\":\"c-%s\","
           "\"base_commit\":\"%s\",\"head_commit\":\"%s\"},\"failure\":{\"failing_tests\":[\"v\"]},"
           "\"commands\":{\"test\":\"if grep -q 1 v.txt; then echo 'ok 1 - v'; else echo 'not ok 1 - v'; echo '1..1'; exit 1; fi; echo '1..1'\"},\"model\":{\"spec\":\"openai:scripted\"}}",
           dir, "1", base, head);

  /* sandbox options (version 3): strict JSON; older versions still initialise */
  CHECK(fa_agent_options_init(&opts, 2) == FA_OK && opts.version == 2);
  CHECK(fa_agent_options_init(&opts, FA_AGENT_OPTIONS_VERSION + 1) == FA_EUNSUPPORTED);
  CHECK(fa_agent_options_init(&opts, FA_AGENT_OPTIONS_VERSION) == FA_OK && opts.sandbox_json == NULL);
  opts.sandbox_json = "{\"max_processes\": \"many\"}";
  CHECK(fa_agent_create(&agent, &opts) == FA_ESCHEMA && agent == NULL);
  CHECK(strstr(fa_error_last(), "sandbox.max_processes") != NULL);
  opts.sandbox_json = "{\"read_only_paths\": [\"/usr/share\"], \"max_processes\": 512}";
  CHECK(fa_agent_create(&agent, &opts) == FA_OK);
  fa_agent_free(agent);
  agent = NULL;
  opts.sandbox_json = NULL;

  /* unknown plug-in versions */
  CHECK(fa_agent_options_init(&opts, FA_AGENT_OPTIONS_VERSION) == FA_OK);
  tools[0].version = 99;
  opts.tools = tools;
  opts.tool_count = 1;
  CHECK(fa_agent_create(&agent, &opts) == FA_EUNSUPPORTED && agent == NULL);
  tools[0].version = FA_TOOL_VERSION;
  /* versions in one array: version-1 elements are read with their own stride; a mixed array and a
   * length that cuts the schema are refused */
  CHECK(sizeof tools_v1[0] < sizeof tools[0]);
  opts.tools = (const fa_tool *)(const void *)tools_v1;
  opts.tool_count = 2;
  CHECK(fa_agent_create(&agent, &opts) == FA_OK);
  fa_agent_free(agent);
  agent = NULL;
  tools_v1[1].version = 2;
  CHECK(fa_agent_create(&agent, &opts) == FA_EINVAL && agent == NULL);
  CHECK(strstr(fa_error_last(), "one array holds one struct version") != NULL);
  opts.tools = tools;
  tools[1].parameters_json_len = 10;
  CHECK(fa_agent_create(&agent, &opts) == FA_EJSON && agent == NULL);
  tools[1].parameters_json_len = 17;
  opts.tool_count = 1;
  tracker.version = 7;
  opts.change_tracker = &tracker;
  CHECK(fa_agent_create(&agent, &opts) == FA_EUNSUPPORTED);
  tracker.version = FA_CHANGE_TRACKER_VERSION;
  opts.tool_count = 3;
  opts.tools = NULL;
  CHECK(fa_agent_create(&agent, &opts) == FA_EINVAL);

  /* the normal path: host transport, host tool, host change tracker */
  opts.tools = tools;
  opts.tool_count = 2;
  opts.transport = &transport;
  opts.worker_threads = 1;
  CHECK(fa_agent_create(&agent, &opts) == FA_OK);
  CHECK(fa_agent_submit(&job, agent, request, strlen(request)) == FA_OK);
  CHECK(fa_job_wait(job, 60000) == FA_OK);
  CHECK(fa_job_result_json(&result, job) == FA_OK);
  CHECK(result && strstr(result, "\"status\":\"fixed\"") != NULL);
  if (result && !strstr(result, "\"status\":\"fixed\"")) fprintf(stderr, "result: %.600s\n", result);
  CHECK(shouted == 1);
  CHECK(tracker_calls >= 2); /* before (pre-filter) and after (post-filter) */
  CHECK(result && strstr(result, "v.txt held 2") != NULL);

  /* delivery from C */
  CHECK(fa_result_publish(&published, result, strlen(result), "rdjsonl", NULL, 0) == FA_OK);
  CHECK(published && strstr(published, "\"suggestions\"") != NULL);
  fa_string_free(published);
  CHECK(fa_result_publish(&published, result, strlen(result), "docx", NULL, 0) == FA_EINVAL && published == NULL);
  CHECK(fa_result_publish(&published, "{", 1, "sarif", NULL, 0) == FA_EJSON);
  snprintf(cmd, sizeof cmd, "%s/r", dir);
  CHECK(fa_result_apply(&report, cmd, result, strlen(result)) == FA_OK);
  CHECK(report && strstr(report, "v.txt") != NULL);
  fa_string_free(report);
  snprintf(cmd, sizeof cmd, "%s/r/v.txt", dir);
  {
    char *v = read_whole(cmd);
    CHECK(v && strcmp(v, "1\n") == 0);
    free(v);
  }
  /* only a fixed result is delivered: the same document marked rejected is refused */
  {
    char *rejected = strdup(result);
    char *st = rejected ? strstr(rejected, "\"status\":\"fixed\"") : NULL;
    CHECK(st != NULL);
    if (st) {
      memcpy(st, "\"status\":\"error\"", 16); /* same length: "fixed" -> "error" */
      CHECK(fa_result_publish(&published, rejected, strlen(rejected), "diff", NULL, 0) == FA_ENOTFIXED && published == NULL);
      CHECK(strstr(fa_error_last(), "not fixed") != NULL);
      snprintf(cmd, sizeof cmd, "%s/r", dir);
      CHECK(fa_result_apply(&report, cmd, rejected, strlen(rejected)) == FA_ENOTFIXED && report == NULL);
      CHECK(strcmp(fa_error_name(FA_ENOTFIXED), "FA_ENOTFIXED") == 0);
    }
    free(rejected);
  }
  /* a "fixed" document holding a symlink to /etc: refused, nothing created */
  {
    struct stat st;
    const char *evil =
        "{\"schema\":\"flowagent.repair_result/v1\",\"status\":\"fixed\",\"patch\":\"diff --git a/etc b/etc\\n"
        "new file mode 120000\\nindex 0000000000000000000000000000000000000000..c4f7e0e6ac2f1a9cdee5b5e4d1f3f2a6b7c8d9e0\\n"
        "--- /dev/null\\n+++ b/etc\\n@@ -0,0 +1 @@\\n+/etc\\n\\\\ No newline at end of file\\n\"}";
    snprintf(cmd, sizeof cmd, "%s/r", dir);
    CHECK(fa_result_apply(&report, cmd, evil, strlen(evil)) == FA_ESANDBOX && report == NULL);
    CHECK(strstr(fa_error_last(), "patch_symlink") != NULL);
    CHECK(fa_result_publish(&published, evil, strlen(evil), "diff", NULL, 0) == FA_ESANDBOX);
    snprintf(cmd, sizeof cmd, "%s/r/etc", dir);
    CHECK(lstat(cmd, &st) != 0);
  }
  fa_string_free(result);
  fa_job_free(job);

  /* a callback that fails: the change tracker */
  tracker_fail = 1;
  request[strstr(request, "c-1") - request + 2] = '2';
  CHECK(fa_agent_submit(&job, agent, request, strlen(request)) == FA_OK);
  CHECK(fa_job_wait(job, 60000) == FA_OK);
  CHECK(fa_job_result_json(&result, job) == FA_OK);
  CHECK(result && strstr(result, "\"status\":\"error\"") != NULL && strstr(result, "change tracker failed") != NULL);
  fa_string_free(result);
  fa_job_free(job);
  tracker_fail = 0;

  /* cancel during a (host) tool call, from another thread */
  script_mode = "slow";
  request[strstr(request, "c-2") - request + 2] = '3';
  CHECK(fa_agent_submit(&job, agent, request, strlen(request)) == FA_OK);
  CHECK(pthread_create(&th, NULL, cancel_later, job) == 0);
  CHECK(fa_job_wait(job, 20000) == FA_OK);
  pthread_join(th, NULL);
  CHECK(slow_started == 1);
  CHECK(pending_wait_rc == FA_EPENDING && pending_result_rc == FA_EPENDING);
  CHECK(fa_job_result_json(&result, job) == FA_OK);
  CHECK(result && strstr(result, "\"reason\":\"cancelled\"") != NULL);
  fa_string_free(result);
  fa_job_free(job);
  fa_agent_free(agent);

  /* version-1 options are still accepted */
  {
    fa_agent_options v1 = FA_AGENT_OPTIONS_INIT;
    v1.version = 1;
    CHECK(fa_agent_create(&agent, &v1) == FA_OK);
    fa_agent_free(agent);
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  free(base);
  free(head);
}


/* ---- options versions: fa_agent_options_init(v) writes exactly version v's fields ---- */
static size_t options_size(unsigned int version) {
  switch (version) {
    case 1: return offsetof(fa_agent_options, change_tracker);
    case 2: return offsetof(fa_agent_options, sandbox_json);
    case 3: return offsetof(fa_agent_options, config_json);
    default: return sizeof(fa_agent_options);
  }
}

static void options_version_test(unsigned int version) {
  unsigned char raw[sizeof(fa_agent_options) + 16];
  fa_agent_options *opts = (fa_agent_options *)(void *)raw;
  fa_agent *agent = NULL;
  size_t i, size = options_size(version);
  memset(raw, 0xAB, sizeof raw);
  CHECK(fa_agent_options_init(opts, version) == FA_OK);
  CHECK(opts->version == version);
  CHECK(opts->worker_threads == 0 && opts->on_event == NULL && opts->event_payload == NULL);
  for (i = size; i < sizeof raw; ++i)
    if (raw[i] != 0xAB) {
      fprintf(stderr, "version %u: byte %zu beyond the struct's %zu was written\n", version, i, size);
      failures++;
      break;
    }
  /* a struct of that version is read only up to its size: the bytes after it are garbage */
  opts->worker_threads = 1;
  CHECK(fa_agent_create(&agent, opts) == FA_OK && agent != NULL);
  fa_agent_free(agent);
}

/* ---- reentrancy: every fa_* call from an event callback returns or works; none aborts ---- */
static fa_agent *re_agent = NULL;
static fa_job *_Atomic re_job = NULL;
static fa_job *_Atomic re_other = NULL;
static atomic_int re_done = 0;
static int re_wait_rc = 0, re_poll_rc = 0, re_submit_rc = 0, re_result_rc = 0;
static int reentrant_event(const char *json, void *payload) {
  struct timespec ts = {0, 1000000};
  fa_job *extra = NULL;
  char *result = NULL;
  int i;
  (void)json;
  (void)payload;
  if (re_done) return 0;
  for (i = 0; i < 5000 && (!re_job || !re_other); ++i) nanosleep(&ts, NULL); /* main stores the handles */
  re_wait_rc = fa_job_wait(re_job, 1000);       /* would wait for this very worker: refused */
  re_poll_rc = fa_job_wait(re_job, 0);          /* a poll is fine */
  re_result_rc = fa_job_result_json(&result, re_job);
  fa_string_free(result);
  re_submit_rc = fa_agent_submit(&extra, re_agent, REQUEST_BOT, strlen(REQUEST_BOT));
  fa_job_free(extra);
  fa_job_free(re_other);                        /* another job's handle, freed from the callback */
  fa_agent_free(re_agent);                      /* the agent whose callback this is */
  re_done = 1;
  return 0;
}

static void reentrancy_test(void) {
  fa_agent_options opts;
  struct timespec ts = {0, 5000000};
  int i, done = 0;
  fa_job *job = NULL, *other = NULL;
  CHECK(fa_agent_options_init(&opts, FA_AGENT_OPTIONS_VERSION) == FA_OK);
  opts.worker_threads = 1;
  opts.on_event = reentrant_event;
  CHECK(fa_agent_create(&re_agent, &opts) == FA_OK);
  CHECK(fa_agent_submit(&job, re_agent, REQUEST_BOT, strlen(REQUEST_BOT)) == FA_OK);
  CHECK(fa_agent_submit(&other, re_agent, REQUEST_BOT, strlen(REQUEST_BOT)) == FA_OK);
  re_other = other;
  re_job = job;
  for (i = 0; i < 2000 && !re_done; ++i) nanosleep(&ts, NULL);
  CHECK(re_done == 1);
  CHECK(re_wait_rc == FA_EREENTRANT);
  CHECK(re_poll_rc == FA_EPENDING || re_poll_rc == FA_OK);
  CHECK(re_result_rc == FA_EPENDING || re_result_rc == FA_OK);
  CHECK(re_submit_rc == FA_OK);
  /* the job handle outlives the agent and ends */
  CHECK(fa_job_wait(job, 20000) == FA_OK);
  CHECK(fa_job_poll(job, &done) == FA_OK && done == 1);
  fa_job_free(job);
}

static void agent_config_test(void) {
  fa_agent_options opts;
  fa_agent *agent = NULL;
  fa_job *job = NULL;
  char *result = NULL;
  const char *good =
      "{\"schema\":\"flowagent.agent_config/v1\",\"worker_threads\":1,\"workspace\":{\"root\":\"/tmp/fa-capi-ws\","
      "\"pool_per_repo\":0},\"validator\":{\"accept_exit_code_evidence\":true},\"sandbox\":{\"max_processes\":256},"
      "\"known_flaky_tests\":[\"T.x\"]}trailing bytes that are not part of the document";
  CHECK(fa_agent_options_init(&opts, FA_AGENT_OPTIONS_VERSION) == FA_OK && opts.config_json == NULL &&
        opts.config_json_len == 0);
  /* (pointer, length): the bytes after config_json_len are not read */
  opts.config_json = good;
  opts.config_json_len = strstr(good, "trailing") - good;
  CHECK(fa_agent_create(&agent, &opts) == FA_OK);
  /* known_flaky_tests reached the agent: the only failing test is flaky, so it abstains */
  {
    const char *req = "{\"schema\":\"flowagent.repair_request/v1\",\"repository\":\"/nonexistent\","
                      "\"change\":{\"id\":\"c9\",\"base_commit\":\"a\",\"head_commit\":\"b\"},"
                      "\"failure\":{\"failing_tests\":[\"T.x\"]}}";
    CHECK(fa_agent_submit(&job, agent, req, strlen(req)) == FA_OK);
    CHECK(fa_job_wait(job, 20000) == FA_OK);
    CHECK(fa_job_result_json(&result, job) == FA_OK);
    CHECK(result && strstr(result, "known_flaky") != NULL);
    fa_string_free(result);
    fa_job_free(job);
  }
  fa_agent_free(agent);
  agent = NULL;
  /* unknown keys, wrong types, another schema version, both sandbox sources */
  opts.config_json = "{\"schema\":\"flowagent.agent_config/v1\",\"workspaces\":{}}";
  opts.config_json_len = strlen(opts.config_json);
  CHECK(fa_agent_create(&agent, &opts) == FA_ESCHEMA && agent == NULL);
  CHECK(strstr(fa_error_last(), "workspaces") != NULL);
  opts.config_json = "{\"schema\":\"flowagent.agent_config/v1\",\"validator\":{\"flaky_reruns\":\"2\"}}";
  opts.config_json_len = strlen(opts.config_json);
  CHECK(fa_agent_create(&agent, &opts) == FA_ESCHEMA && strstr(fa_error_last(), "validator.flaky_reruns") != NULL);
  opts.config_json = "{\"schema\":\"flowagent.agent_config/v1\",\"workspace\":{\"root\":\"relative\"}}";
  opts.config_json_len = strlen(opts.config_json);
  CHECK(fa_agent_create(&agent, &opts) == FA_ESCHEMA);
  opts.config_json = "{\"schema\":\"flowagent.agent_config/v2\"}";
  opts.config_json_len = strlen(opts.config_json);
  CHECK(fa_agent_create(&agent, &opts) == FA_EUNSUPPORTED);
  opts.config_json = "{\"schema\":\"flowagent.agent_config/v1\",\"sandbox\":{}}";
  opts.config_json_len = strlen(opts.config_json);
  opts.sandbox_json = "{}";
  CHECK(fa_agent_create(&agent, &opts) == FA_EINVAL);
  opts.sandbox_json = NULL;
  opts.config_json = NULL;
  opts.config_json_len = 3;
  CHECK(fa_agent_create(&agent, &opts) == FA_EINVAL);
}

int main(void) {
  fa_agent *agent = NULL;
  fa_job *job = NULL;
  char *result = NULL;
  int done = 0;
  fa_agent_options opts = FA_AGENT_OPTIONS_INIT;

  CHECK(fa_version_number() == FA_VERSION_NUMBER);
  CHECK(strcmp(fa_version_string(), FA_VERSION_STRING) == 0);
  CHECK(fa_error_last() != NULL);
  CHECK(strcmp(fa_error_name(FA_ESCHEMA), "FA_ESCHEMA") == 0);

  /* NULL handles and bad options */
  CHECK(fa_agent_create(NULL, NULL) == FA_EINVAL);
  CHECK(strlen(fa_error_last()) > 0);
  CHECK(fa_agent_submit(&job, NULL, "{}", 2) == FA_EINVAL && job == NULL);
  CHECK(fa_job_wait(NULL, 0) == FA_EINVAL);
  CHECK(fa_job_cancel(NULL) == FA_EINVAL);
  CHECK(fa_job_result_json(&result, NULL) == FA_EINVAL && result == NULL);
  fa_agent_free(NULL);
  fa_job_free(NULL);
  fa_string_free(NULL);
  CHECK(fa_agent_options_init(&opts, 99) == FA_EUNSUPPORTED);
  opts.version = 42;
  CHECK(fa_agent_create(&agent, &opts) == FA_EUNSUPPORTED && agent == NULL);

  /* bad requests */
  CHECK(fa_request_validate("{", 1) == FA_EJSON);
  CHECK(fa_request_validate("{\"schema\":\"flowagent.repair_request/v9\"}", 40) == FA_EUNSUPPORTED);
  CHECK(fa_request_validate("{\"schema\":\"flowagent.repair_request/v1\"}", 40) == FA_ESCHEMA);
  CHECK(strstr(fa_error_last(), "repository") != NULL);
  CHECK(fa_request_validate("\"\xff\"", 3) == FA_EJSON);
  CHECK(fa_request_validate(REQUEST_BOT, strlen(REQUEST_BOT)) == FA_OK);
  {
    /* Several candidates are a request field: the C API carries them in the request document. */
    static const char *with_candidates =
        "{\"schema\":\"flowagent.repair_request/v1\",\"repository\":\"/r\",\"change\":{\"id\":\"c\",\"base_commit\":\"a\","
        "\"head_commit\":\"b\"},\"failure\":{},\"candidates\":{\"count\":3,\"concurrency\":2,\"early_stop\":true}}";
    static const char *too_many =
        "{\"schema\":\"flowagent.repair_request/v1\",\"repository\":\"/r\",\"change\":{\"id\":\"c\",\"base_commit\":\"a\","
        "\"head_commit\":\"b\"},\"failure\":{},\"candidates\":17}";
    CHECK(fa_request_validate(with_candidates, strlen(with_candidates)) == FA_OK);
    CHECK(fa_request_validate(too_many, strlen(too_many)) == FA_ESCHEMA);
  }

  /* normal path: the bot filter abstains, with events */
  CHECK(fa_agent_options_init(&opts, FA_AGENT_OPTIONS_VERSION) == FA_OK);
  opts.worker_threads = 1;
  opts.on_event = on_event;
  opts.event_payload = &events;
  CHECK(fa_agent_create(&agent, &opts) == FA_OK && agent != NULL);
  CHECK(fa_agent_submit(&job, agent, "{nope", 5) == FA_EJSON && job == NULL);
  CHECK(fa_agent_submit(&job, agent, REQUEST_BOT, strlen(REQUEST_BOT)) == FA_OK && job != NULL);
  CHECK(fa_job_wait(job, 10000) == FA_OK);
  CHECK(fa_job_poll(job, &done) == FA_OK && done == 1);
  CHECK(fa_job_result_json(&result, job) == FA_OK && result != NULL);
  if (result) {
    CHECK(strstr(result, "\"status\":\"abstained\"") != NULL);
    CHECK(strstr(result, "\"reason\":\"automated_author\"") != NULL);
  }
  fa_string_free(result);
  CHECK(fa_job_cancel(job) == FA_OK); /* cancelling a finished job is harmless */
  fa_job_free(job);
  fa_agent_free(agent);
  CHECK(events >= 2);

  full_path_tests();

  {
    unsigned int v;
    for (v = 1; v <= FA_AGENT_OPTIONS_VERSION; ++v) options_version_test(v);
  }
  agent_config_test();
  reentrancy_test();

  /* the integrity guard from C */
  {
    char *findings = NULL;
    const char *files =
        "[{\"path\":\"tests/test_a.py\",\"before\":\"def test_a():\\n    assert f() == 3\\n\","
        "\"after\":\"def test_a():\\n    assert f() > 2\\n\"}]";
    CHECK(fa_integrity_check(&findings, files, strlen(files), NULL, 0) == FA_OK);
    CHECK(findings && strstr(findings, "assertion_weakened") != NULL);
    fa_string_free(findings);
    CHECK(fa_integrity_check(&findings, "{}", 2, NULL, 0) == FA_ESCHEMA && findings == NULL);
    CHECK(fa_integrity_check(&findings, "[{\"path\":1}]", 12, NULL, 0) == FA_ESCHEMA);
  }
  /* ... with the project read from a repository: the failing test imports helpers.py, so a stand-in
   * for the code under test there is test code (without "repo" the guard cannot know that). */
  {
    char gdir[] = "/tmp/fa_capi_guard_XXXXXX", gcmd[1024], opts[512];
    char *findings = NULL;
    const char *files =
        "[{\"path\":\"helpers.py\",\"before\":\"import calc\\n\\n\\ndef check(got, want):\\n    assert got == want\\n\","
        "\"after\":\"import calc\\ncalc.add = lambda a, b: a + b\\n\\n\\ndef check(got, want):\\n    assert got == want\\n\"}]";
    CHECK(mkdtemp(gdir) != NULL);
    snprintf(gcmd, sizeof gcmd,
             "cd %s && git init -q -b main r && cd r && mkdir tests && "
             "printf 'def add(a, b):\\n    return a + b\\n' > calc.py && "
             "printf 'import calc\\n\\n\\ndef check(got, want):\\n    assert got == want\\n' > helpers.py && "
             "printf 'from calc import add\\nfrom helpers import check\\n\\n\\ndef test_add():\\n    check(add(2, 2), 4)\\n' > tests/test_calc.py && "
             "git add -A && git -c user.name=a -c user.email=b commit -qm one",
             gdir);
    CHECK(system(gcmd) == 0);
    CHECK(fa_integrity_check(&findings, files, strlen(files), NULL, 0) == FA_OK);
    CHECK(findings && strcmp(findings, "[]") == 0);
    fa_string_free(findings);
    snprintf(opts, sizeof opts, "{\"failing_tests\":[\"tests/test_calc.py::test_add\"],\"repo\":\"%s/r\",\"head\":\"HEAD\"}", gdir);
    CHECK(fa_integrity_check(&findings, files, strlen(files), opts, strlen(opts)) == FA_OK);
    CHECK(findings && strstr(findings, "mocked_code_under_test") != NULL);
    fa_string_free(findings);
    findings = NULL;
    snprintf(opts, sizeof opts, "{\"repo\":\"%s\"}", gdir); /* not a repository */
    CHECK(fa_integrity_check(&findings, files, strlen(files), opts, strlen(opts)) == FA_ENOTFOUND && findings == NULL);
    snprintf(opts, sizeof opts, "{\"repo\":\"%s/r\",\"head\":\"nosuchrev\"}", gdir);
    CHECK(fa_integrity_check(&findings, files, strlen(files), opts, strlen(opts)) == FA_ENOTFOUND);
    CHECK(fa_integrity_check(&findings, files, strlen(files), "{\"head\":\"HEAD\"}", 15) == FA_ESCHEMA);
    CHECK(fa_integrity_check(&findings, files, strlen(files), "{\"repo\":1}", 10) == FA_ESCHEMA);
    snprintf(gcmd, sizeof gcmd, "rm -rf %s", gdir);
    CHECK(system(gcmd) == 0);
  }

  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("capi_test: all checks passed\n");
  return failures ? 1 : 0;
}
