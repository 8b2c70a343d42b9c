//===- DotGraph.h - Graphviz drawings of placed graphs ----------*- C++ -*-===//
//
// Draws a module at any phase from placement on: ops coloured by device,
// fusions as clusters, partitions as outer clusters, and host<->device
// transfers as marked nodes on the edges they carry. `dot -Tsvg` renders it.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_ANALYSIS_DOTGRAPH_H
#define TANDEM_PASSES_ANALYSIS_DOTGRAPH_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tandem {

/// Writes one `digraph` for the module: every function that is not a
/// partition, with the partitions it calls drawn inline as clusters.
void writeDotGraph(ModuleOp module, llvm::raw_ostream &os);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_ANALYSIS_DOTGRAPH_H
