// Code retrieval: BM25 over tree-sitter chunks (identifiers split into words), cached per tree state;
// an optional semantic tier (embeddings through the provider's HTTP endpoint, cached by content hash,
// exact cosine); the search_relevant_code tool; coverage + retrieval combination.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>

#include "flowagent/json.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/localize.hpp"
#include "flowagent/model_client.hpp"
#include "flowagent/tools.hpp"
#include "localize/vector_index.hpp"
#include "workspace/repo_ops.hpp"
#include "workspace/git.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent {

namespace fs = std::filesystem;

// The lexical index (named, not file-local: CodeRetriever::Impl holds it).
namespace detail {

struct ChunkDoc {
  CodeChunk chunk;
  std::unordered_map<std::string, int> tf;
  int length = 0;
  std::string text;  // for the semantic tier: the chunk's head (symbol + first lines)
  std::uint64_t hash = 0;
};

struct LexicalIndex {
  std::vector<ChunkDoc> docs;
  std::unordered_map<std::string, int> df;
  double avg_length = 0;
};

}  // namespace detail

namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The tree's files: `git ls-files` through the explicit git dir (never discovery: a `.git` planted
// in a workspace tree must not configure a git call), else a walk that follows no symlink.
std::vector<std::string> list_files(const fs::path& root, const fs::path& git_dir, const CancelToken& cancel,
                                    std::size_t max_files) {
  std::vector<std::string> files;
  Expected<std::vector<std::string>> listing = fail(Errc::not_found, "no git dir");
  if (!git_dir.empty()) listing = detail::work_tree_files(detail::GitRepo(git_dir, root), cancel);
  if (listing) {
    if (listing->size() > max_files) listing->resize(max_files);
    return std::move(*listing);
  }
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator() && files.size() < max_files; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (it->is_directory(ec) && (name == ".git" || name == "node_modules" || name.rfind(".", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec)) files.push_back(it->path().lexically_relative(root).generic_string());
  }
  return files;
}

detail::LexicalIndex build_index(const fs::path& root, const fs::path& git_dir, const RetrieverOptions& opt,
                  const CancelToken& cancel) {
  detail::LexicalIndex idx;
  std::size_t total = 0;
  auto tree = detail::SandboxFs::open(root);
  if (!tree) return idx;
  for (const auto& rel : list_files(root, git_dir, cancel, opt.max_files)) {
    if (cancel.cancelled()) break;
    if (!has_code_grammar(rel)) continue;
    // Confined read: no symlink out of the tree, no hard-linked file, no device, no .git.
    std::error_code ec;
    if (fs::is_symlink(root / rel, ec)) continue;
    auto text = tree->read(rel, opt.max_file_bytes);
    if (!text) continue;
    const std::string& src = *text;
    auto chunks = code_chunks(rel, src);
    if (chunks.empty()) continue;
    // Line offsets for slicing chunk texts.
    std::vector<std::size_t> starts{0};
    for (std::size_t i = 0; i < src.size(); ++i)
      if (src[i] == '\n') starts.push_back(i + 1);
    for (auto& c : chunks) {
      detail::ChunkDoc d;
      const std::size_t b = starts[std::min<std::size_t>(c.start_line - 1, starts.size() - 1)];
      const std::size_t e = c.end_line < static_cast<int>(starts.size()) ? starts[c.end_line] : src.size();
      std::string_view body(src.data() + b, e - b);
      // The path and the symbol are words of the chunk too.
      for (const auto& w : split_identifier_words(rel + " " + c.symbol)) d.tf[w] += 2;
      for (const auto& w : split_identifier_words(body)) d.tf[w]++;
      for (auto& [w, n] : d.tf) d.length += n;
      // Classes hold their methods; index their head only so methods are not drowned by them.
      d.text = c.symbol + "\n" + std::string(body.substr(0, 1500));
      d.hash = fnv1a(rel + "\n" + d.text);
      d.chunk = std::move(c);
      for (const auto& [w, n] : d.tf) idx.df[w]++;
      total += static_cast<std::size_t>(d.length);
      idx.docs.push_back(std::move(d));
    }
  }
  idx.avg_length = idx.docs.empty() ? 1 : static_cast<double>(total) / static_cast<double>(idx.docs.size());
  return idx;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || a.empty()) return 0;
  double dot = 0, na = 0, nb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i], y = b[i];
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0;
}

class HttpEmbedder final : public Embedder {
 public:
  explicit HttpEmbedder(EmbedderOptions o) : o_(std::move(o)) {}
  std::string_view name() const override { return o_.protocol; }

  Expected<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts,
                                                  const CancelToken& cancel) override {
    std::vector<std::vector<float>> out;
    for (std::size_t from = 0; from < texts.size(); from += std::max<std::size_t>(1, o_.batch)) {
      const std::size_t to = std::min(texts.size(), from + std::max<std::size_t>(1, o_.batch));
      Json::Array input;
      for (std::size_t i = from; i < to; ++i) input.emplace_back(sanitize_utf8(texts[i]));
      HttpRequest req;
      std::string base = o_.base_url;
      while (!base.empty() && base.back() == '/') base.pop_back();
      req.url = base + (o_.protocol == "ollama" ? "/api/embed" : "/embeddings");
      req.headers.emplace_back("content-type", "application/json");
      if (!o_.api_key.empty()) req.headers.emplace_back("authorization", "Bearer " + o_.api_key);
      req.body = dump_json_lossy(Json::obj({{"model", o_.model}, {"input", Json(std::move(input))}}));
      auto resp = o_.transport->send(req, cancel);
      if (!resp) return unexpected(resp.error());
      if (resp->status != 200)
        return fail(Errc::model, "embeddings endpoint answered HTTP " + std::to_string(resp->status));
      auto doc = parse_json(resp->body);
      if (!doc) return fail(Errc::protocol, "embeddings reply is not JSON");
      std::vector<const Json*> vecs;
      if (const Json* data = doc->find("data"); data && data->is_array()) {  // OpenAI
        std::vector<std::pair<std::int64_t, const Json*>> byidx;
        for (const auto& d : data->as_array())
          if (const Json* e = d.find("embedding")) byidx.emplace_back(d.get_int("index", static_cast<std::int64_t>(byidx.size())), e);
        std::sort(byidx.begin(), byidx.end(), [](auto& a, auto& b) { return a.first < b.first; });
        for (auto& [i, e] : byidx) vecs.push_back(e);
      } else if (const Json* embs = doc->find("embeddings"); embs && embs->is_array()) {  // Ollama
        for (const auto& e : embs->as_array()) vecs.push_back(&e);
      }
      if (vecs.size() != to - from) return fail(Errc::protocol, "embeddings reply has the wrong number of vectors");
      for (const Json* v : vecs) {
        if (!v->is_array()) return fail(Errc::protocol, "an embedding is not an array");
        std::vector<float> f;
        for (const auto& x : v->as_array()) {
          if (!x.is_number()) return fail(Errc::protocol, "an embedding holds a non-number");
          f.push_back(static_cast<float>(x.as_double()));
        }
        out.push_back(std::move(f));
      }
    }
    return out;
  }

 private:
  EmbedderOptions o_;
};

}  // namespace

Expected<std::shared_ptr<Embedder>> make_http_embedder(EmbedderOptions o) {
  if (o.protocol != "openai" && o.protocol != "ollama")
    return fail(Errc::invalid_argument, "embedder protocol must be openai or ollama");
  if (o.base_url.empty() || o.model.empty()) return fail(Errc::invalid_argument, "embedder needs base_url and model");
  if (!o.transport) {
    auto t = make_beast_transport();
    if (!t) return unexpected(t.error());
    o.transport = *t;
  }
  return std::shared_ptr<Embedder>(std::make_shared<HttpEmbedder>(std::move(o)));
}

Expected<std::shared_ptr<Embedder>> make_model_embedder(const ModelConfig& config,
                                                        std::shared_ptr<HttpTransport> transport) {
  if (config.spec.rfind("replay:", 0) == 0 || config.spec.rfind("anthropic:", 0) == 0 || config.spec == "builtin")
    return fail(Errc::invalid_argument, "embeddings model \"" + config.spec +
                                            "\": the provider has no embeddings endpoint (use openai:, ollama:, vllm:, "
                                            "llamacpp:, gemini: or openai-compatible:)");
  auto ep = resolve_model_spec(config);
  if (!ep) return unexpected(ep.error());
  EmbedderOptions o;
  o.protocol = "openai";  // every provider here serves POST {base}/embeddings (Ollama under /v1 too)
  o.base_url = ep->base_url;
  o.model = ep->model;
  if (!ep->key_env.empty())
    if (const char* v = std::getenv(ep->key_env.c_str())) o.api_key = v;
  // A host transport (C API) authenticates on its own; otherwise hosted providers need a key.
  if (o.api_key.empty() && !transport && (ep->provider == "openai" || ep->provider == "gemini"))
    return fail(Errc::invalid_argument, "no API key for the embeddings model: set " + ep->key_env);
  o.transport = std::move(transport);
  return make_http_embedder(std::move(o));
}

struct CodeRetriever::Impl {
  RetrieverOptions opt;
  mutable std::mutex mu;
  std::map<std::string, std::shared_ptr<const detail::LexicalIndex>> indexes;
  std::unordered_map<std::uint64_t, std::vector<float>> vectors;  // content hash -> embedding
  // Whole-index semantic search (semantic_candidates == 0): one vector index per lexical index.
  std::map<std::shared_ptr<const detail::LexicalIndex>, std::shared_ptr<detail::VectorIndex>> vector_indexes;
  std::size_t built = 0, embedded = 0;
};

CodeRetriever::CodeRetriever(RetrieverOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->opt = std::move(options);
}
CodeRetriever::~CodeRetriever() = default;

std::size_t CodeRetriever::indexes_built() const {
  std::lock_guard lk(impl_->mu);
  return impl_->built;
}
std::size_t CodeRetriever::texts_embedded() const {
  std::lock_guard lk(impl_->mu);
  return impl_->embedded;
}

std::string CodeRetriever::describe() const {
  const auto& o = impl_->opt;
  std::string d = "lexical (BM25)";
  if (!o.embedder) return d;
  d += " + embeddings (" + std::string(o.embedder->name()) + ", weight " + std::to_string(o.semantic_weight).substr(0, 4) + ")";
  if (o.semantic_candidates > 0) return d + " re-ranking the best " + std::to_string(o.semantic_candidates) + " lexical hits";
  return d + " over the whole index (every chunk embedded; exact: " +
         (detail::VectorIndex::faiss_available()
              ? "a scan below " + std::to_string(detail::VectorIndex::kFaissMin) + " vectors, faiss from there"
              : std::string("a scan; this build has no faiss")) +
         ")";
}

Expected<std::shared_ptr<CodeRetriever>> make_semantic_retriever(const EmbeddingsConfig& config,
                                                                 std::shared_ptr<HttpTransport> transport) {
  if (config.candidates > kMaxSemanticCandidates)
    return fail(Errc::invalid_argument, "embeddings candidates must be at most " + std::to_string(kMaxSemanticCandidates) +
                                            " (0: the whole index)");
  if (!(config.weight >= 0 && config.weight <= 1)) return fail(Errc::invalid_argument, "embeddings weight must be in [0, 1]");
  auto embedder = make_model_embedder(config.model, std::move(transport));
  if (!embedder) return unexpected(embedder.error());
  RetrieverOptions ro;
  ro.embedder = std::move(*embedder);
  ro.semantic_candidates = config.candidates;
  ro.semantic_weight = config.weight;
  return std::make_shared<CodeRetriever>(std::move(ro));
}

Expected<std::vector<RetrievalHit>> CodeRetriever::search(const fs::path& root, const std::string& cache_key,
                                                          std::string_view query, std::size_t k,
                                                          const CancelToken& cancel, const fs::path& git_dir) {
  auto& I = *impl_;
  std::shared_ptr<const detail::LexicalIndex> idx;
  {
    std::lock_guard lk(I.mu);
    if (auto it = I.indexes.find(cache_key); !cache_key.empty() && it != I.indexes.end()) idx = it->second;
  }
  if (!idx) {
    auto built = std::make_shared<const detail::LexicalIndex>(build_index(root, git_dir, I.opt, cancel));
    if (cancel.cancelled()) return fail(Errc::cancelled, "cancelled");
    std::lock_guard lk(I.mu);
    I.built++;
    if (!cache_key.empty()) {
      if (I.indexes.size() > 16) {  // bounded: one entry per tree state
        I.indexes.clear();
        I.vector_indexes.clear();
      }
      I.indexes[cache_key] = built;
    }
    idx = built;
  }
  // BM25.
  auto words = split_identifier_words(query);
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  const double N = static_cast<double>(idx->docs.size());
  std::vector<std::pair<double, std::size_t>> scored;
  for (std::size_t i = 0; i < idx->docs.size(); ++i) {
    const auto& d = idx->docs[i];
    double s = 0;
    for (const auto& w : words) {
      auto tf = d.tf.find(w);
      if (tf == d.tf.end()) continue;
      const double df = idx->df.at(w);
      const double idf = std::log(1 + (N - df + 0.5) / (df + 0.5));
      const double f = tf->second;
      s += idf * f * (I.opt.k1 + 1) / (f + I.opt.k1 * (1 - I.opt.b + I.opt.b * d.length / idx->avg_length));
    }
    if (s > 0) scored.emplace_back(s, i);
  }
  std::sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.first > b.first; });
  // Semantic tier over the whole index: every chunk embedded (cached by content hash), the nearest
  // by cosine found exactly (VectorIndex: a scan, faiss when large) and merged with the best
  // lexical hits; each candidate scores (1-w) * bm25 (normalized) + w * cosine.
  if (I.opt.embedder && I.opt.semantic_candidates == 0 && !idx->docs.empty()) {
    std::vector<std::string> missing;
    std::vector<std::uint64_t> missing_hash;
    {
      std::lock_guard lk(I.mu);
      std::unordered_map<std::uint64_t, bool> queued;
      for (const auto& d : idx->docs)
        if (!I.vectors.count(d.hash) && queued.emplace(d.hash, true).second) {
          missing.push_back(d.text);
          missing_hash.push_back(d.hash);
        }
    }
    missing.push_back(std::string(query));
    auto vecs = I.opt.embedder->embed(missing, cancel);
    if (!vecs && vecs.error().code == Errc::cancelled) return unexpected(vecs.error());
    if (vecs) {
      const auto qv = vecs->back();
      std::shared_ptr<detail::VectorIndex> vi;
      {
        std::lock_guard lk(I.mu);
        I.embedded += missing.size() - 1;
        for (std::size_t j = 0; j + 1 < vecs->size(); ++j) I.vectors[missing_hash[j]] = (*vecs)[j];
        auto& slot = I.vector_indexes[idx];
        if (!slot || slot->size() != idx->docs.size()) {
          slot = std::make_shared<detail::VectorIndex>(qv.size());
          for (const auto& d : idx->docs) slot->add(I.vectors[d.hash]);
        }
        vi = slot;
      }
      const double top = scored.empty() ? 1.0 : scored.front().first;
      std::unordered_map<std::size_t, double> bm25;
      for (std::size_t j = 0; j < scored.size() && j < 50; ++j) bm25[scored[j].second] = scored[j].first / top;
      std::unordered_map<std::size_t, double> cos;
      for (auto [c, i] : vi->search(qv, std::max<std::size_t>(k, 50))) cos[i] = c;
      std::vector<std::pair<double, std::size_t>> merged;
      const double w = I.opt.semantic_weight;
      std::unordered_map<std::size_t, bool> seen;
      for (auto* part : {&bm25, &cos})
        for (const auto& [i, unused] : *part) {
          (void)unused;
          if (!seen.emplace(i, true).second) continue;
          auto b = bm25.find(i);
          auto c = cos.find(i);
          merged.emplace_back((1 - w) * (b == bm25.end() ? 0.0 : b->second) + w * (c == cos.end() ? 0.0 : c->second), i);
        }
      std::sort(merged.begin(), merged.end(),
                [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
      scored = std::move(merged);
    }
  } else if (I.opt.embedder && !scored.empty()) {
    // Semantic tier: re-rank the best lexical candidates by cosine similarity to the query.
    if (scored.size() > I.opt.semantic_candidates) scored.resize(I.opt.semantic_candidates);
    std::vector<std::string> missing;
    std::vector<std::uint64_t> missing_hash;
    {
      std::lock_guard lk(I.mu);
      for (auto& [s, i] : scored) {
        const auto& d = idx->docs[i];
        if (!I.vectors.count(d.hash) &&
            std::find(missing_hash.begin(), missing_hash.end(), d.hash) == missing_hash.end()) {
          missing.push_back(d.text);
          missing_hash.push_back(d.hash);
        }
      }
    }
    missing.push_back(std::string(query));
    auto vecs = I.opt.embedder->embed(missing, cancel);
    if (!vecs) {
      if (vecs.error().code == Errc::cancelled) return unexpected(vecs.error());
      // The lexical ranking stands when the embedder fails.
    } else {
      const auto qv = vecs->back();
      std::lock_guard lk(I.mu);
      I.embedded += missing.size() - 1;
      for (std::size_t j = 0; j + 1 < vecs->size(); ++j) I.vectors[missing_hash[j]] = (*vecs)[j];
      const double top = scored.front().first;
      const double w = I.opt.semantic_weight;
      for (auto& [s, i] : scored) s = (1 - w) * (s / top) + w * cosine(I.vectors[idx->docs[i].hash], qv);
      std::sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.first > b.first; });
    }
  }
  std::vector<RetrievalHit> out;
  for (std::size_t j = 0; j < scored.size() && out.size() < k; ++j) {
    const auto& c = idx->docs[scored[j].second].chunk;
    out.push_back(RetrievalHit{c.file, c.symbol, c.kind, c.start_line, c.end_line, scored[j].first});
  }
  return out;
}

std::vector<SuspiciousLocation> combine_rankings(const std::vector<SuspiciousLocation>& coverage,
                                                 const std::vector<RetrievalHit>& retrieval, double w) {
  std::map<std::pair<std::string, std::string>, SuspiciousLocation> by;
  const double ctop = coverage.empty() ? 1 : std::max(1e-9, coverage.front().score);
  double rtop = 1e-9;
  for (const auto& r : retrieval) rtop = std::max(rtop, r.score);
  for (const auto& c : coverage) {
    auto& l = by[{c.file, c.symbol}];
    l = c;
    l.score = w * c.score / ctop;
  }
  for (const auto& r : retrieval) {
    if (r.kind != "function") continue;
    auto [it, fresh] = by.try_emplace({r.file, r.symbol});
    if (fresh) it->second = SuspiciousLocation{r.file, r.symbol, r.start_line, r.end_line, 0, false, {}};
    it->second.score += (1 - w) * r.score / rtop;
  }
  std::vector<SuspiciousLocation> out;
  for (auto& [k, l] : by) out.push_back(std::move(l));
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.score > b.score; });
  return out;
}

// ---- the tool ------------------------------------------------------------------------------------

namespace {

class SearchRelevantCode final : public Tool {
 public:
  explicit SearchRelevantCode(std::shared_ptr<CodeRetriever> r) : r_(std::move(r)) {
    params_ = *parse_json(
        R"({"type":"object","properties":{"query":{"type":"string","description":"what you look for: identifiers, error text or a description"},
        "max_results":{"type":"integer","minimum":1,"maximum":30}},"required":["query"],"additionalProperties":false})");
  }
  std::string_view name() const override { return "search_relevant_code"; }
  std::string_view description() const override {
    return "Rank the repository's functions and classes by relevance to a query (BM25 over identifiers split into "
           "words, optionally embeddings). Returns file:start-end symbol, best first. Use it to find where "
           "something is implemented; then read_file the lines.";
  }
  const Json& parameters() const override { return params_; }
  Expected<ToolOutput> invoke(const Json& a, ToolContext& ctx) override {
    const std::string key = ctx.request.repository + "\x1f" + ctx.request.change.head_commit;
    const auto k = static_cast<std::size_t>(a.get_int("max_results", 10));
    auto hits = r_->search(ctx.workspace.root(), key, a.get_string("query"), k, ctx.cancel, ctx.workspace.git_dir());
    if (!hits) {
      if (hits.error().code == Errc::cancelled) return unexpected(hits.error());
      return ToolOutput{false, hits.error().message};
    }
    if (hits->empty()) return ToolOutput{true, "no matching functions or classes"};
    std::string out;
    for (const auto& h : *hits) {
      std::string line = h.file + ":" + std::to_string(h.start_line) + "-" + std::to_string(h.end_line) + " " + h.kind +
                         " " + h.symbol + " (score " + std::to_string(h.score).substr(0, 5) + ")\n";
      if (out.size() + line.size() > 6000) break;  // a bounded reply
      out += line;
    }
    out += "(index of the change's head commit; lines may have moved after your edits)\n";
    return ToolOutput{true, std::move(out)};
  }

 private:
  std::shared_ptr<CodeRetriever> r_;
  Json params_;
};

}  // namespace

Expected<void> register_retrieval_tool(ToolRegistry& registry, std::shared_ptr<CodeRetriever> retriever) {
  if (!retriever) return fail(Errc::invalid_argument, "no retriever");
  return registry.add(std::make_shared<SearchRelevantCode>(std::move(retriever)));
}

}  // namespace flowagent
