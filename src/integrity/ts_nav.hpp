// Linear-time navigation of tree-sitter syntax trees.
//
// tree-sitter 0.20 (Debian's runtime) reaches a node's i-th child by walking its children from the
// first (`ts_node_child`, `ts_node_named_child`: O(i)), its siblings the same way, and its parent by
// descending from the root (`ts_node_parent`: O(depth x siblings before)). The guard's walks reach
// children by index, so a node with k children cost O(k^2): a developer's 1 MB list literal on one
// line held the guard for 30 s, a 3 MB one for 195 s (hostile review 57, F3).
//
// These functions answer the same questions as the tree-sitter calls they are named after, with the
// same results (tests/unit/ts_nav_test.cpp compares them node by node, broken files included:
// around nodes spanning no bytes tree-sitter itself is asked), in O(1) for a child and
// O(depth x log siblings) for a parent or sibling, from a per-thread cache of each node's children
// read once with a TSTreeCursor. The cache lives while an OwnedTree holds the tree; for a tree no
// OwnedTree holds on this thread, each function is the plain tree-sitter call.
//
// Threading: the cache is per thread; a tree is parsed, walked and deleted on one thread (each
// analysis runs on its own deep-stack thread). Errors: none; a node of another tree is answered by
// tree-sitter itself. Memory: about 32 bytes per child of each node whose children were asked for
// (the tree itself takes more); above kMaxCachedNodes per tree the cache starts over.
#pragma once

#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>

namespace flowagent::integrity::tsnav {

/// Children cached per tree before the cache is dropped and refilled (a bound on memory).
inline constexpr std::size_t kMaxCachedNodes = std::size_t{1} << 24;

/// ts_node_child(n, i).
TSNode child(TSNode n, uint32_t i);
/// ts_node_named_child(n, i).
TSNode named_child(TSNode n, uint32_t i);
/// ts_node_parent(n): the nearest visible ancestor; null for the root.
TSNode parent(TSNode n);
/// ts_node_next_named_sibling(n), ts_node_prev_named_sibling(n).
TSNode next_named_sibling(TSNode n);
TSNode prev_named_sibling(TSNode n);

/// Thrown out of child() and named_child() when the poll a CancelPoll installed answers true.
struct Cancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

/// Installs `poll` on the calling thread while it lives: child() and named_child() ask it every
/// kPollEvery calls (every walk of the guard goes through them) and throw Cancelled when it answers
/// true. An empty poll installs nothing. Scopes nest (the inner one is asked).
class CancelPoll {
 public:
  explicit CancelPoll(std::function<bool()> poll);
  ~CancelPoll();
  CancelPoll(const CancelPoll&) = delete;
  CancelPoll& operator=(const CancelPoll&) = delete;

 private:
  std::function<bool()> poll_;
  const std::function<bool()>* outer_;
};
inline constexpr uint32_t kPollEvery = 4096;

/// Owns a parsed tree (deleted with it) and keeps the navigation cache for it on the constructing
/// thread. Null trees are allowed (get() is null). Not copyable or movable: the cache is keyed by
/// the tree and dropped in the destructor, on the thread that made it.
class OwnedTree {
 public:
  explicit OwnedTree(TSTree* tree);
  ~OwnedTree();
  OwnedTree(const OwnedTree&) = delete;
  OwnedTree& operator=(const OwnedTree&) = delete;
  TSTree* get() const { return tree_; }
  explicit operator bool() const { return tree_ != nullptr; }

 private:
  TSTree* tree_;
};

}  // namespace flowagent::integrity::tsnav
