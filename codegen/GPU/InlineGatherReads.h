//===- InlineGatherReads.h - producers computed where read ---*- C++ -*-===//
//
// A GPU partition's concat is one linalg.generic that reads each element
// of the input holding it with a tensor.extract in its payload (a gather);
// so are Swin's rolls (two concats of slices each) and the gathers. Linalg's
// elementwise fusion does not see through such reads, so a pointwise
// producer of the read tensor (the window reverse's transpose before a
// roll, the first roll before the second) stayed a kernel of its own. The
// pattern here computes the producer's element where it is read instead.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_CODEGEN_GPU_INLINEGATHERREADS_H
#define TANDEM_CODEGEN_GPU_INLINEGATHERREADS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tandem {

/// Adds the pattern that replaces a tensor.extract inside a linalg op's
/// payload in a GPU partition, of an element of a pointwise linalg op's
/// result (directly or through extract_slices with unit strides), by that
/// element computed in place: the producer's inputs read at its maps'
/// indices and its payload cloned (linalg.index replaced by the element's
/// indices). Only when every use of the producer is such a read, so that
/// the producer then goes away, and the bodies stay below `maxBodyOps`.
void populateInlineGatherReadPatterns(RewritePatternSet &patterns,
                                      size_t maxBodyOps);

} // namespace mlir::tandem

#endif // TANDEM_CODEGEN_GPU_INLINEGATHERREADS_H
