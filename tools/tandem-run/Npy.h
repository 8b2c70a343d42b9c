//===- Npy.h - NumPy .npy reading and writing -----------------*- C++ -*-===//
//
// Reads and writes NumPy .npy files (format versions 1.0, 2.0 and 3.0) of
// the element types the Tandem runtime knows: little-endian '<f8', '<f4',
// '<f2', '<i8', '<i4', '<i2', '|i1', '<u8', '<u4', '<u2', '|u1' and '|b1',
// in C order. NumPy has no bf16: writeNpy writes bf16 arrays as '<u2'
// arrays of their raw bits, the form tandem-run also reads for bf16.
// Fortran-order, big-endian, object and other arrays are rejected with an error
// that names the file, as are bool arrays whose bytes are not 0 or 1. Standard
// C++ and POSIX only; no LLVM.
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

/// Default of readNpy's size limit: 64 GiB.
constexpr uint64_t kNpyDefaultMaxBytes = uint64_t(64) << 30;

/// Reads `path` into `array`. Only regular files are read: a directory, a
/// device (/dev/zero), a FIFO or a socket is an error, found before any
/// read (a FIFO is opened without waiting for a writer), as is a file larger
/// than `maxBytes`. Bool arrays must hold only 0 and 1 bytes. On failure
/// returns false and sets `error` to a message that starts with the path
/// ("x.npy: not a .npy file (bad magic)"); never throws.
bool readNpy(const std::string &path, NpyArray &array, std::string &error,
             uint64_t maxBytes = kNpyDefaultMaxBytes);

/// The largest .npy file that can hold an array of `dtype` and `shape`: its
/// data plus room for any header, a readNpy limit for a file whose shape
/// is known.
uint64_t npyMaxFileBytes(tandem_dtype_t dtype,
                         const std::vector<int64_t> &shape);

/// Parses a whole .npy file already in memory; `name` prefixes errors.
/// Memory-safe for any bytes (fuzzed by test/fuzz/NpyFuzzer.cpp).
bool parseNpy(const std::string &name, const std::vector<unsigned char> &bytes,
              NpyArray &array, std::string &error);

/// Writes `array` to `path` as .npy version 1.0 (2.0 if the header needs
/// it); a bf16 array as '<u2' raw bits. Writes a temporary file and renames it,
/// so a failure leaves no partial file. On failure returns false and sets
/// `error`.
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

/// The .npy descr of `dtype` ("<f4", ...); empty for bf16, which NumPy has no
/// standard type for.
std::string npyDescr(tandem_dtype_t dtype);

} // namespace tandem

#endif // TANDEM_TOOLS_TANDEM_RUN_NPY_H
