//===- MinCut.cpp - s-t minimum cut on a small flow network ---------------===//

#include "passes/Placement/MinCut.h"

#include <algorithm>
#include <cassert>
#include <queue>

using namespace mlir::tandem;

/// Flow below this is treated as zero, so rounding never leaves a
/// phantom residual edge.
static constexpr double kEpsilon = 1e-9;

MinCut::MinCut(size_t numNodes) : adjacency(numNodes) {}

size_t MinCut::addNode() {
  adjacency.emplace_back();
  return adjacency.size() - 1;
}

void MinCut::addEdge(size_t from, size_t to, double capacity) {
  assert(from < adjacency.size() && to < adjacency.size() && capacity >= 0);
  adjacency[from].push_back(edges.size());
  edges.push_back({to, capacity});
  adjacency[to].push_back(edges.size());
  edges.push_back({from, 0});
}

bool MinCut::buildLevels(size_t source, size_t sink) {
  level.assign(adjacency.size(), -1);
  std::queue<size_t> queue;
  level[source] = 0;
  queue.push(source);
  while (!queue.empty()) {
    size_t node = queue.front();
    queue.pop();
    for (size_t e : adjacency[node])
      if (edges[e].capacity > kEpsilon && level[edges[e].to] < 0) {
        level[edges[e].to] = level[node] + 1;
        queue.push(edges[e].to);
      }
  }
  return level[sink] >= 0;
}

double MinCut::augment(size_t node, size_t sink, double limit) {
  if (node == sink)
    return limit;
  for (size_t &i = nextEdge[node]; i < adjacency[node].size(); ++i) {
    size_t e = adjacency[node][i];
    Edge &edge = edges[e];
    if (edge.capacity <= kEpsilon || level[edge.to] != level[node] + 1)
      continue;
    double pushed = augment(edge.to, sink, std::min(limit, edge.capacity));
    if (pushed > kEpsilon) {
      edge.capacity -= pushed;
      edges[e ^ 1].capacity += pushed;
      return pushed;
    }
  }
  return 0;
}

double MinCut::solve(size_t source, size_t sink) {
  double flow = 0;
  while (buildLevels(source, sink)) {
    nextEdge.assign(adjacency.size(), 0);
    while (double pushed = augment(source, sink, kInfinity * 4))
      flow += pushed;
  }
  // The source side is what the last BFS reached.
  sourceSide.assign(adjacency.size(), false);
  for (size_t n = 0; n < adjacency.size(); ++n)
    sourceSide[n] = level[n] >= 0;
  return flow;
}
