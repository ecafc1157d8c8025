/* <flowagent/flowagent.h>: the stable C API of flowagent.
 *
 * Conventions (docs/C_API.md):
 *  - Every function returns int: 0 (FA_OK) on success or a negative fa_error_code. After a failure,
 *    fa_error_last() returns a message for the calling thread (never NULL; valid until the next
 *    flowagent call on that thread).
 *  - Handles are opaque. fa_x_free(NULL) is a no-op. Out parameters come first.
 *  - Requests and results cross the ABI as JSON documents (schemas in docs/SCHEMA.md) in UTF-8.
 *    Strings returned to the caller are allocated by flowagent and freed with fa_string_free().
 *  - Options structs start with `unsigned int version`; initialise with fa_agent_options_init()
 *    or FA_AGENT_OPTIONS_INIT. Fields are only ever appended.
 *  - No C++ exception crosses this boundary.
 *
 * Threading: an fa_agent may be used from any number of threads at once. An fa_job may be waited
 * on, polled and cancelled from any thread; fa_job_free must not race with other calls on the same
 * job. Callbacks run on flowagent's worker threads.
 */
#ifndef FLOWAGENT_FLOWAGENT_H
#define FLOWAGENT_FLOWAGENT_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define FA_API __declspec(dllexport)
#else
#define FA_API __attribute__((visibility("default")))
#endif
#define FA_CALLBACK(name) (*name)

#ifdef __cplusplus
extern "C" {
#endif

#define FA_VERSION_MAJOR 0
#define FA_VERSION_MINOR 1
#define FA_VERSION_PATCH 0
#define FA_VERSION_NUMBER (FA_VERSION_MAJOR * 10000 + FA_VERSION_MINOR * 100 + FA_VERSION_PATCH)

typedef enum fa_error_code {
  FA_OK = 0,
  FA_EINVAL = -1,       /* invalid argument (NULL handle, bad option) */
  FA_EJSON = -2,        /* text is not JSON or not UTF-8 */
  FA_ESCHEMA = -3,      /* JSON does not match the schema; the message names the field */
  FA_EIO = -4,
  FA_EPROCESS = -5,
  FA_ETIMEOUT = -6,     /* fa_job_wait: the job is not done yet */
  FA_ECANCELLED = -7,
  FA_EBUDGET = -8,
  FA_ENOTFOUND = -9,
  FA_ESANDBOX = -10,
  FA_ETOOL = -11,
  FA_EMODEL = -12,
  FA_EPROTOCOL = -13,
  FA_EUNSUPPORTED = -14, /* unknown struct or schema version */
  FA_ECONFLICT = -15,
  FA_EINTERNAL = -16,
  FA_EUSER = -17,       /* a host callback returned non-zero */
  FA_ESANDBOXUNAVAIL = -18, /* untrusted commands cannot be isolated here (bwrap missing, namespaces refused) */
  FA_ENOTFIXED = -19    /* fa_result_publish/fa_result_apply: the result's status is not "fixed" */
} fa_error_code;

/* Version of the library actually loaded (FA_VERSION_NUMBER layout). */
FA_API int fa_version_number(void);
/* "0.1.0"; static storage. */
FA_API const char *fa_version_string(void);
/* Message of the last failure on this thread; "" when none. Never NULL. */
FA_API const char *fa_error_last(void);
/* Stable name of an error code ("FA_ESCHEMA"). Never NULL. */
FA_API const char *fa_error_name(int code);

/* Frees a string returned by flowagent. NULL is a no-op. */
FA_API void fa_string_free(char *str);

/* Event callback: `event_json` is a "flowagent.event/v1" document, valid during the call.
 * Called on a worker thread. The return value is ignored for events. */
typedef int FA_CALLBACK(fa_event_cb)(const char *event_json, void *payload);

/* A byte buffer owned by flowagent that a callback fills. Valid only during the callback. */
typedef struct fa_buffer fa_buffer;
/* Replaces the buffer's content with `len` bytes of `data` (need not be NUL-terminated). */
FA_API int fa_buffer_set(fa_buffer *buffer, const char *data, size_t len);

/* ---- host plug-ins (vtables). Every struct starts with its version; the payload is passed last.
 * Callbacks run on worker threads, possibly concurrently for different jobs. A callback returning
 * a negative value fails the operation with FA_EUSER (its buffer, if any, holds the message). */

#define FA_CHANGE_TRACKER_VERSION 1
typedef struct fa_change_tracker {
  unsigned int version; /* FA_CHANGE_TRACKER_VERSION */
  /* Where does the change stand? Fill the three out values; return 0, or < 0 on failure. */
  int FA_CALLBACK(state)(const char *change_id, int64_t revision, int64_t *current_revision, int *submitted,
                         int *abandoned, void *payload);
  void *payload;
} fa_change_tracker;

/* Passed to tool callbacks: lets a long tool notice that its job was cancelled. */
typedef struct fa_tool_context fa_tool_context;
FA_API int fa_tool_context_cancelled(const fa_tool_context *ctx);

#define FA_TOOL_VERSION 1
typedef struct fa_tool {
  unsigned int version;        /* FA_TOOL_VERSION */
  const char *name;            /* letters, digits, '_' and '-'; copied at fa_agent_create */
  const char *description;     /* written for the model; copied */
  const char *parameters_json; /* JSON schema of the arguments (type object); copied */
  int mutates;                 /* 1 when the tool edits files (counts as an edit for validation) */
  /* Runs the tool. args_json was checked against parameters_json. Write what the model should see
   * into `out`. Return 0 on success, 1 for a tool-level failure the model sees, < 0 for an error. */
  int FA_CALLBACK(invoke)(const char *args_json, const char *workspace_root, const fa_tool_context *ctx,
                          fa_buffer *out, void *payload);
  void *payload;
} fa_tool;

#define FA_TRANSPORT_VERSION 1
typedef struct fa_transport {
  unsigned int version; /* FA_TRANSPORT_VERSION */
  /* Sends one model HTTP request for flowagent (through the host's proxy or auth layer).
   * request_json: {"method","url","headers":[[name,value],...],"body"}. Write the response as
   * {"status":200,"headers":[[name,value],...],"body":"..."} into `response` and return 0; return
   * < 0 when no response arrived (the call is retried like a connection error). */
  int FA_CALLBACK(send)(const char *request_json, fa_buffer *response, void *payload);
  void *payload;
} fa_transport;

#define FA_AGENT_OPTIONS_VERSION 3
typedef struct fa_agent_options {
  unsigned int version;     /* FA_AGENT_OPTIONS_VERSION (1 and 2 are still accepted: their prefixes) */
  int worker_threads;       /* concurrent jobs; 0 means 2 */
  fa_event_cb on_event;     /* optional */
  void *event_payload;      /* passed last to on_event */
  /* version 2: */
  const fa_change_tracker *change_tracker; /* optional; copied */
  const fa_tool *tools;                    /* optional array of extra tools; copied */
  size_t tool_count;
  const fa_transport *transport;           /* optional: every model call goes through it; copied */
  const char *trajectory_dir;              /* optional: write each job's trajectory (JSONL) here */
  /* version 3: */
  /* optional JSON object configuring the sandbox of build/test commands (docs/SECURITY.md), e.g.
   * {"allow_unsandboxed_commands": true, "read_only_paths": ["/opt/sdk"], "max_processes": 512}.
   * NULL: the defaults (sandboxed; a job ends "sandbox_unavailable" when bwrap cannot run). */
  const char *sandbox_json;
} fa_agent_options;
#define FA_AGENT_OPTIONS_INIT {FA_AGENT_OPTIONS_VERSION, 0, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL}
/* Fills `opts` with defaults for the given struct version (1..FA_AGENT_OPTIONS_VERSION; only that
 * version's fields are written). FA_EUNSUPPORTED for unknown versions. */
FA_API int fa_agent_options_init(fa_agent_options *opts, unsigned int version);

typedef struct fa_agent fa_agent;
typedef struct fa_job fa_job;

/* Creates an agent. `opts` may be NULL for defaults. */
FA_API int fa_agent_create(fa_agent **out, const fa_agent_options *opts);
/* Cancels every job, waits for them to end, frees. Jobs handles stay valid (and done). */
FA_API void fa_agent_free(fa_agent *agent);

/* Checks a "flowagent.repair_request/v1" document without running anything. */
FA_API int fa_request_validate(const char *request_json, size_t len);

/* Queues a repair. `request_json` need not be NUL-terminated; it is copied. */
FA_API int fa_agent_submit(fa_job **out, fa_agent *agent, const char *request_json, size_t len);

/* Waits up to timeout_ms (negative: forever). FA_OK when done, FA_ETIMEOUT otherwise. */
FA_API int fa_job_wait(fa_job *job, int64_t timeout_ms);
/* *done = 1 when the job has ended. */
FA_API int fa_job_poll(fa_job *job, int *done);
/* Requests cancellation; safe from any thread, also from a callback. */
FA_API int fa_job_cancel(fa_job *job);
/* The "flowagent.repair_result/v1" document; free with fa_string_free. FA_ETIMEOUT if not done. */
FA_API int fa_job_result_json(char **out, fa_job *job);
FA_API void fa_job_free(fa_job *job);

/* ---- trust layer --------------------------------------------------------------------------------- */

/* Checks a candidate patch for test cheating, deterministically. files_json:
 * [{"path": "...", "before": "..."|null, "after": "..."|null}, ...] (null: absent);
 * options_json may be NULL or {"failing_tests": [...]}. *findings_json receives
 * [{"rule","path","line","message"}, ...] (empty array: no cheating). */
FA_API int fa_integrity_check(char **findings_json, const char *files_json, size_t len, const char *options_json);

/* ---- delivery ------------------------------------------------------------------------------------ */

/* Only a fixed result is delivered: fa_result_publish and fa_result_apply return FA_ENOTFIXED for a
 * result whose status is not "fixed", and FA_ESANDBOX for a patch that is not regular text files
 * inside the tree (symlink, submodule, mode or type change, binary, a path outside the tree);
 * nothing is written then. */

/* Writes a result in a review tool's or IDE's format: "diff", "sarif", "gerrit", "github",
 * "rdjsonl", "lsp". options_json may be NULL or {"change_diff": "...", "uri_base": "...",
 * "lsp_utf8": true}. *out is freed with fa_string_free. */
FA_API int fa_result_publish(char **out, const char *result_json, size_t len, const char *format,
                             const char *options_json);

/* Applies a result's patch to the working tree of `repo` (three-way when the tree moved on). On a
 * conflict nothing is written and FA_ECONFLICT is returned. *report_json (may be NULL) receives
 * {"three_way":bool,"files":[...],"message":"..."}. */
FA_API int fa_result_apply(char **report_json, const char *repo, const char *result_json, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* FLOWAGENT_FLOWAGENT_H */
