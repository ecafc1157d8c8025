#include "localize/vector_index.hpp"

#include <algorithm>
#include <cmath>

#ifdef FLOWAGENT_HAVE_FAISS
#include <faiss/IndexFlat.h>
#endif

namespace flowagent::detail {

namespace {

std::vector<float> unit(const std::vector<float>& v, std::size_t dim) {
  std::vector<float> out(dim, 0.0f);
  if (v.size() != dim) return out;
  double n = 0;
  for (float x : v) n += static_cast<double>(x) * static_cast<double>(x);
  if (n <= 0 || !std::isfinite(n)) return out;
  const double inv = 1.0 / std::sqrt(n);
  for (std::size_t i = 0; i < dim; ++i) out[i] = static_cast<float>(static_cast<double>(v[i]) * inv);
  return out;
}

}  // namespace

#ifdef FLOWAGENT_HAVE_FAISS
using FaissId = decltype(faiss::Index::ntotal);  // faiss::Index::idx_t in 1.7, faiss::idx_t later
struct VectorIndex::Faiss {
  explicit Faiss(std::size_t dim) : index(static_cast<FaissId>(dim)) {}
  faiss::IndexFlatIP index;
};
#else
struct VectorIndex::Faiss {};
#endif

VectorIndex::VectorIndex(std::size_t dim, std::size_t faiss_min) : dim_(dim), faiss_min_(faiss_min) {}
VectorIndex::~VectorIndex() = default;

void VectorIndex::add(const std::vector<float>& v) {
  auto u = unit(v, dim_);
  data_.insert(data_.end(), u.begin(), u.end());
}

bool VectorIndex::faiss_available() {
#ifdef FLOWAGENT_HAVE_FAISS
  return true;
#else
  return false;
#endif
}

VectorIndex::Backend VectorIndex::backend() const {
  return faiss_available() && size() >= faiss_min_ ? Backend::faiss : Backend::scan;
}

std::vector<std::pair<float, std::size_t>> VectorIndex::search(const std::vector<float>& query, std::size_t k,
                                                               Backend b) const {
  std::vector<std::pair<float, std::size_t>> out;
  const std::size_t n = size();
  k = std::min(k, n);
  if (k == 0) return out;
  const auto q = unit(query, dim_);
  if (b == Backend::automatic) b = backend();
#ifdef FLOWAGENT_HAVE_FAISS
  if (b == Backend::faiss) {
    std::lock_guard lk(mu_);  // faiss's search is const, but the index grows here on first use
    if (!faiss_) faiss_ = std::make_unique<Faiss>(dim_);
    const auto have = static_cast<std::size_t>(faiss_->index.ntotal);
    if (have < n)
      faiss_->index.add(static_cast<FaissId>(n - have), data_.data() + have * dim_);
    std::vector<float> scores(k);
    std::vector<FaissId> ids(k);
    faiss_->index.search(1, q.data(), static_cast<FaissId>(k), scores.data(), ids.data());
    for (std::size_t i = 0; i < k; ++i)
      if (ids[i] >= 0) out.emplace_back(scores[i], static_cast<std::size_t>(ids[i]));
    // faiss orders equal scores arbitrarily; the scan's order (position) decides.
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& c) {
      return a.first != c.first ? a.first > c.first : a.second < c.second;
    });
    return out;
  }
#endif
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float* v = data_.data() + i * dim_;
    float s = 0;
    for (std::size_t j = 0; j < dim_; ++j) s += v[j] * q[j];
    out.emplace_back(s, i);
  }
  auto better = [](const auto& a, const auto& c) { return a.first != c.first ? a.first > c.first : a.second < c.second; };
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(), better);
  out.resize(k);
  return out;
}

}  // namespace flowagent::detail
