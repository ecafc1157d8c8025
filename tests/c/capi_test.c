/* The C API used from C: the header must compile as C11, and every call must behave on bad input. */
#include <flowagent/flowagent.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void) {
  fa_agent *agent = NULL;
  fa_job *job = NULL;
  char *result = NULL;
  int done = 0;
  fa_agent_options opts = FA_AGENT_OPTIONS_INIT;

  CHECK(fa_version_number() == FA_VERSION_NUMBER);
  CHECK(strcmp(fa_version_string(), "0.1.0") == 0);
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

  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("capi_test: all checks passed\n");
  return failures ? 1 : 0;
}
