//===- Npy.h - NumPy .npy reading and writing -----------------*- C++ -*-===//
//
// Reads and writes NumPy .npy files (format versions 1.0, 2.0 and 3.0) of
// the element types the Tandem runtime knows: little-endian '<f4', '<f2',
// '<i8', '<i4' and '|b1', in C order. Fortran-order, big-endian, object and
// other arrays are rejected with an error that names the file. Standard
// C++ only; no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_TOOLS_TANDEM_RUN_NPY_H
#define TANDEM_TOOLS_TANDEM_RUN_NPY_H

#include "tandem/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tandem {

/// A dense row-major array. `data` holds numElements() * elementSize bytes.
struct NpyArray {
  tandem_dtype_t dtype = TANDEM_F32;
  std::vector<int64_t> shape;
  std::vector<unsigned char> data;

  /// Product of the extents (1 for rank 0).
  int64_t numElements() const;
};

/// Reads `path` into `array`. On failure returns false and sets `error` to a
/// message that starts with the path ("x.npy: not a .npy file (bad magic)").
bool readNpy(const std::string &path, NpyArray &array, std::string &error);

/// Parses a whole .npy file already in memory; `name` prefixes errors.
bool parseNpy(const std::string &name, const std::vector<unsigned char> &bytes,
              NpyArray &array, std::string &error);

/// Writes `array` to `path` as .npy version 1.0 (2.0 if the header needs
/// it). Writes a temporary file and renames it, so a failure leaves no
/// partial file. On failure returns false and sets `error`.
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

/// The .npy descr of `dtype` ("<f4", ...); empty for bf16, which NumPy has no
/// standard type for.
std::string npyDescr(tandem_dtype_t dtype);

} // namespace tandem

#endif // TANDEM_TOOLS_TANDEM_RUN_NPY_H
