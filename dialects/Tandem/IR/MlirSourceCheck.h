//===- MlirSourceCheck.h - .mlir text MLIR's parser would crash on -*- C++
//-*-===//
//
// MLIR 22's parser crashes, instead of reporting an error, on a few inputs
// it accepts lexically. The .mlir front doors (tandem-opt, tandemc, the
// parse fuzzer) scan the text with findParserCrash first and report such a
// spot as an ordinary error. No MLIR dependency: plain text scanning.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_DIALECTS_TANDEM_IR_MLIRSOURCECHECK_H
#define TANDEM_DIALECTS_TANDEM_IR_MLIRSOURCECHECK_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>
#include <string>

namespace mlir::tandem {

/// A spot in .mlir text that the parser would crash on.
struct ParserCrashSpot {
  size_t offset;       ///< byte offset of the construct in the text
  std::string message; ///< the diagnostic, lower case
};

/// Scans `text`, skipping `//` comments and string literals, for constructs
/// that crash MLIR 22's parser: a dense array of `index` elements
/// (`array<index>`, `array<index: 1, 2>`), whose element width the parser
/// asks an index type for (upstream asserts, release builds segfault).
/// Returns the first such spot, if any.
std::optional<ParserCrashSpot> findParserCrash(llvm::StringRef text);

} // namespace mlir::tandem

#endif // TANDEM_DIALECTS_TANDEM_IR_MLIRSOURCECHECK_H
