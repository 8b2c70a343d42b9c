//===- NpyFuzzer.cpp - libFuzzer target for tandem-run's .npy reader ------===//
//
// Feeds arbitrary bytes to parseNpy, the parser behind tandem-run's --input
// and --compare files. Any crash, sanitizer report, timeout or out-of-memory
// is a bug; a parsed array must hold exactly its shape's bytes, with bool
// bytes 0 or 1. Built by scripts/fuzz.sh with clang and
// -fsanitize=fuzzer,address,undefined.
//
//===----------------------------------------------------------------------===//

#include "tools/tandem-run/Npy.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<unsigned char> bytes(data, data + size);
  tandem::NpyArray array;
  std::string error;
  if (!tandem::parseNpy("fuzz.npy", bytes, array, error)) {
    if (error.empty())
      std::abort(); // a failure must say why
    return 0;
  }
  uint64_t expected =
      uint64_t(array.numElements()) * tandem_dtype_size(array.dtype);
  if (array.data.size() != expected)
    std::abort();
  if (array.dtype == TANDEM_BOOL)
    for (unsigned char byte : array.data)
      if (byte > 1)
        std::abort();
  return 0;
}
