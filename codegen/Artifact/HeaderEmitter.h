//===- HeaderEmitter.h - the C header of a compiled model -------*- C++ -*-===//
//
// Writes <name>.h: the model's signature as constants, its descriptor, and
// typed wrappers over the runtime's model API (docs/RuntimeABI.md).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_ARTIFACT_HEADEREMITTER_H
#define TANDEM_CODEGEN_ARTIFACT_HEADEREMITTER_H

#include "codegen/Artifact/ModelSignature.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::tandem {

/// Writes the header for `signature`.
void emitModelHeader(const ModelSignature &signature, llvm::raw_ostream &os);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_ARTIFACT_HEADEREMITTER_H
