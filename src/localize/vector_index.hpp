// Internal: exact nearest-neighbour search over embedding vectors for the retrieval's semantic
// tier. Small indexes are scanned; large ones (kFaissMin vectors and more) go to faiss's flat
// inner-product index when the build found Debian's libfaiss-dev (FLOWAGENT_WITH_FAISS). Both are
// exact, so the backend changes the speed, never the ranking (tests/unit/localize_test.cpp checks
// that faiss and the scan agree).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace flowagent::detail {

/// Maximum inner product over vectors normalized to unit length on add (so: cosine similarity).
/// [Threading] search() may run concurrently with itself; add() must not run concurrently with
/// anything. [Errors] none: a vector of the wrong dimension or of zero length scores 0.
class VectorIndex {
 public:
  enum class Backend { automatic, scan, faiss };
  static constexpr std::size_t kFaissMin = 50'000;

  explicit VectorIndex(std::size_t dim, std::size_t faiss_min = kFaissMin);
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  void add(const std::vector<float>& v);
  std::size_t size() const { return dim_ ? data_.size() / dim_ : 0; }
  std::size_t dim() const { return dim_; }

  /// The best `k` as (score, position of the vector in add order), best first. `automatic`: faiss
  /// from faiss_min vectors on when the build has it, else the scan; `faiss` without faiss scans.
  std::vector<std::pair<float, std::size_t>> search(const std::vector<float>& query, std::size_t k,
                                                    Backend backend = Backend::automatic) const;
  /// The backend search(automatic) uses at the current size.
  Backend backend() const;
  /// Whether this build links faiss.
  static bool faiss_available();

 private:
  struct Faiss;
  std::size_t dim_;
  std::size_t faiss_min_;
  std::vector<float> data_;
  mutable std::mutex mu_;               // guards faiss_
  mutable std::unique_ptr<Faiss> faiss_;  // built on first faiss search, extended as vectors come
};

}  // namespace flowagent::detail
