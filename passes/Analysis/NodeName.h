//===- NodeName.h - user-facing names of graph ops --------------*- C++ -*-===//
//
// The name an op carries in reports, dot graphs, fusion names and --place
// globs: the ONNX node name the importer stores as the op's NameLoc, or,
// for IR without one, a stable fallback built from the op name.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_PASSES_ANALYSIS_NODENAME_H
#define TANDEM_PASSES_ANALYSIS_NODENAME_H

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::tandem {

/// The ONNX node name of `op` (the outermost NameLoc in its location, also
/// looking inside FusedLocs), or the empty string.
std::string getNodeName(Operation *op);

/// getNodeName(op) when there is one; otherwise "<op name without dialect>"
/// followed by "#<n>", where n is the op's position among the ops of its
/// block, so that unnamed ops in hand-written IR stay distinguishable.
std::string getDisplayName(Operation *op);

/// Turns a node name into an identifier usable in symbol names: every
/// character outside [A-Za-z0-9_.] becomes '_' ("/layer1/conv" ->
/// "_layer1_conv").
std::string sanitizeName(llvm::StringRef name);

} // namespace mlir::tandem

#endif // TANDEM_PASSES_ANALYSIS_NODENAME_H
