//===- MinCut.h - s-t minimum cut on a small flow network -------*- C++ -*-===//
//
// Dinic's max-flow algorithm with real capacities, used by placement to split
// a graph between the host CPU and a GPU (Stone's two-processor assignment).
// Plain C++, unit-tested alone.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_PLACEMENT_MINCUT_H
#define TANDEM_PASSES_PLACEMENT_MINCUT_H

#include <cstddef>
#include <limits>
#include <vector>

namespace mlir::tandem {

/// A directed flow network. Node 0 is not special: pass the source and sink
/// to solve().
class MinCut {
public:
  /// Capacity that no finite cut pays: pins and "must follow" constraints.
  static constexpr double kInfinity = 1e30;

  explicit MinCut(size_t numNodes);

  size_t addNode();
  size_t numNodes() const { return adjacency.size(); }

  /// Adds an edge `from -> to` of `capacity` (>= 0). A cut pays it when
  /// `from` is on the source side and `to` on the sink side.
  void addEdge(size_t from, size_t to, double capacity);

  /// Computes a minimum s-t cut and returns its value. Afterwards
  /// onSourceSide(n) tells which side each node is on.
  double solve(size_t source, size_t sink);

  /// After solve(): whether `node` is reachable from the source in the
  /// residual network (the source side of the minimum cut).
  bool onSourceSide(size_t node) const { return sourceSide[node]; }

private:
  struct Edge {
    size_t to;
    double capacity;
  };
  bool buildLevels(size_t source, size_t sink);
  double augment(size_t node, size_t sink, double limit);

  std::vector<Edge> edges;
  std::vector<std::vector<size_t>> adjacency;
  std::vector<int> level;
  std::vector<size_t> nextEdge;
  std::vector<bool> sourceSide;
};

} // namespace mlir::tandem

#endif // TANDEM_PASSES_PLACEMENT_MINCUT_H
