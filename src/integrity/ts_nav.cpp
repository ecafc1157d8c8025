#include "integrity/ts_nav.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace flowagent::integrity::tsnav {
namespace {

/// Nodes with at most this many visible children are asked of tree-sitter directly: walking 8
/// children costs less than a hash lookup would save.
constexpr uint32_t kDirect = 8;

struct Kids {
  std::vector<TSNode> all;      ///< the visible children, in order
  std::vector<uint32_t> named;  ///< indices into `all` of the named ones
  bool zero_width = false;      ///< some child spans no bytes (a MISSING token, an empty block)
};

struct TreeCache {
  std::unordered_map<const void*, Kids> kids;  ///< by node id (its subtree: unique in one tree)
  std::size_t nodes = 0;
};

/// The poll of the innermost CancelPoll on this thread (null: none), and the calls since it was asked.
thread_local const std::function<bool()>* t_poll = nullptr;
thread_local uint32_t t_calls = 0;

void poll() {
  if (t_poll && ++t_calls >= kPollEvery) {
    t_calls = 0;
    if ((*t_poll)()) throw Cancelled{};
  }
}

/// The trees an OwnedTree holds on this thread, and the one asked for last (walks stay in one tree).
thread_local std::unordered_map<const TSTree*, TreeCache> t_trees;
thread_local const TSTree* t_last_tree = nullptr;
thread_local TreeCache* t_last_cache = nullptr;

TreeCache* cache_for(TSNode n) {
  if (n.tree == t_last_tree && n.tree) return t_last_cache;
  if (t_trees.empty() || ts_node_is_null(n)) return nullptr;
  const auto it = t_trees.find(n.tree);
  if (it == t_trees.end()) return nullptr;
  t_last_tree = n.tree;
  t_last_cache = &it->second;
  return t_last_cache;
}

/// The children of `n`, read once with a cursor (O(children)). The reference is valid until the
/// next call (a full cache starts over).
const Kids& kids(TreeCache& c, TSNode n) {
  if (const auto it = c.kids.find(n.id); it != c.kids.end()) return it->second;
  if (c.nodes > kMaxCachedNodes) {
    c.kids.clear();
    c.nodes = 0;
  }
  Kids& k = c.kids[n.id];
  TSTreeCursor cur = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cur)) {
    do {
      const TSNode x = ts_tree_cursor_current_node(&cur);
      if (ts_node_is_named(x)) k.named.push_back(static_cast<uint32_t>(k.all.size()));
      if (ts_node_start_byte(x) == ts_node_end_byte(x)) k.zero_width = true;
      k.all.push_back(x);
    } while (ts_tree_cursor_goto_next_sibling(&cur));
  }
  ts_tree_cursor_delete(&cur);
  c.nodes += k.all.size() + 1;
  return k;
}

/// Calls `visit` on the children of `k` that may be a node starting at byte `start` or hold it,
/// nearest first, until it returns true: the last child starting at or before `start`, then back
/// while they reach it. Children are in order and do not overlap, so those are few (zero-width
/// ones, then the node or the child holding it). Returns whether `visit` returned true.
template <class Visit>
bool scan_back(const Kids& k, uint32_t start, Visit visit) {
  auto it = std::upper_bound(k.all.begin(), k.all.end(), start,
                             [](uint32_t s, const TSNode& x) { return s < ts_node_start_byte(x); });
  while (it != k.all.begin()) {
    --it;
    if (visit(*it, static_cast<std::size_t>(it - k.all.begin()))) return true;
    if (ts_node_end_byte(*it) < start) break;
  }
  return false;
}

/// Where `n` is among `k.all`: the index, or k.all.size() when it is not a child.
std::size_t index_of(const Kids& k, TSNode n) {
  std::size_t found = k.all.size();
  scan_back(k, ts_node_start_byte(n), [&](const TSNode& x, std::size_t i) {
    if (x.id != n.id) return false;
    found = i;
    return true;
  });
  return found;
}

/// The visible parent of `n` by descending from the root through cached children; null when not
/// found (the caller falls back to tree-sitter).
TSNode parent_cached(TreeCache& c, TSNode n) {
  const TSNode root = ts_tree_root_node(n.tree);
  if (root.id == n.id) return TSNode{};
  const uint32_t start = ts_node_start_byte(n);
  const uint32_t end = ts_node_end_byte(n);
  TSNode x = root;
  for (;;) {
    TSNode down{};
    const bool is_child = scan_back(kids(c, x), start, [&](const TSNode& y, std::size_t) {
      if (y.id == n.id) return true;
      const uint32_t ys = ts_node_start_byte(y);
      const uint32_t ye = ts_node_end_byte(y);
      // The first (rightmost) child spanning n that has children of its own: n is in it. Among
      // several (zero-width neighbours), a wider one wins.
      if (ys <= start && ye >= end && ts_node_child_count(y) > 0 &&
          (ts_node_is_null(down) || (ts_node_end_byte(down) == ts_node_start_byte(down) && ye > ys)))
        down = y;
      return false;
    });
    if (is_child) return x;
    if (ts_node_is_null(down)) return TSNode{};
    x = down;
  }
}

}  // namespace

TSNode child(TSNode n, uint32_t i) {
  poll();
  if (ts_node_is_null(n) || ts_node_child_count(n) <= kDirect) return ts_node_child(n, i);
  TreeCache* c = cache_for(n);
  if (!c) return ts_node_child(n, i);
  const Kids& k = kids(*c, n);
  return i < k.all.size() ? k.all[i] : TSNode{};
}

TSNode named_child(TSNode n, uint32_t i) {
  poll();
  if (ts_node_is_null(n) || ts_node_child_count(n) <= kDirect) return ts_node_named_child(n, i);
  TreeCache* c = cache_for(n);
  if (!c) return ts_node_named_child(n, i);
  const Kids& k = kids(*c, n);
  return i < k.named.size() ? k.all[k.named[i]] : TSNode{};
}

TSNode parent(TSNode n) {
  TreeCache* c = cache_for(n);
  if (!c) return ts_node_parent(n);
  if (ts_tree_root_node(n.tree).id == n.id) return TSNode{};
  // tree-sitter finds a parent by byte positions, and for a node spanning no bytes (a MISSING
  // token of a broken file, an empty block) its answer can be a neighbour: asked of it, so the
  // answers stay the same.
  if (ts_node_start_byte(n) == ts_node_end_byte(n)) return ts_node_parent(n);
  const TSNode p = parent_cached(*c, n);
  return ts_node_is_null(p) ? ts_node_parent(n) : p;
}

namespace {
/// The named sibling `step` (+1 or -1) away from `n`, through the cached children of its parent.
TSNode named_sibling(TSNode n, int step) {
  TreeCache* c = cache_for(n);
  // (A node spanning no bytes: tree-sitter is asked, as parent() does.)
  if (!c || ts_node_start_byte(n) == ts_node_end_byte(n))
    return step > 0 ? ts_node_next_named_sibling(n) : ts_node_prev_named_sibling(n);
  const TSNode p = parent(n);
  if (ts_node_is_null(p)) return step > 0 ? ts_node_next_named_sibling(n) : ts_node_prev_named_sibling(n);
  const Kids& k = kids(*c, p);
  const std::size_t i = k.zero_width ? k.all.size() : index_of(k, n);  // (zero width: as parent())
  if (i == k.all.size()) return step > 0 ? ts_node_next_named_sibling(n) : ts_node_prev_named_sibling(n);
  if (step > 0) {
    for (std::size_t j = i + 1; j < k.all.size(); ++j)
      if (ts_node_is_named(k.all[j])) return k.all[j];
  } else {
    for (std::size_t j = i; j-- > 0;)
      if (ts_node_is_named(k.all[j])) return k.all[j];
  }
  return TSNode{};
}
}  // namespace

TSNode next_named_sibling(TSNode n) { return named_sibling(n, +1); }
TSNode prev_named_sibling(TSNode n) { return named_sibling(n, -1); }

CancelPoll::CancelPoll(std::function<bool()> p) : poll_(std::move(p)), outer_(t_poll) {
  if (poll_) t_poll = &poll_;
}

CancelPoll::~CancelPoll() {
  if (poll_) t_poll = outer_;
}

OwnedTree::OwnedTree(TSTree* tree) : tree_(tree) {
  if (!tree_) return;
  t_trees.try_emplace(tree_);
  t_last_tree = nullptr;  // (a rehash may have moved the caches)
  t_last_cache = nullptr;
}

OwnedTree::~OwnedTree() {
  if (!tree_) return;
  t_trees.erase(tree_);
  t_last_tree = nullptr;
  t_last_cache = nullptr;
  ts_tree_delete(tree_);
}

}  // namespace flowagent::integrity::tsnav
