//===- Npy.cpp - NumPy .npy reading and writing ---------------------------===//

#include "Npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <new>
#include <sys/stat.h>
#include <unistd.h>

namespace tandem {

int64_t NpyArray::numElements() const {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

std::string npyDescr(tandem_dtype_t dtype) {
  switch (dtype) {
  case TANDEM_F32:
    return "<f4";
  case TANDEM_F16:
    return "<f2";
  case TANDEM_I64:
    return "<i8";
  case TANDEM_I32:
    return "<i4";
  case TANDEM_BOOL:
    return "|b1";
  case TANDEM_F64:
    return "<f8";
  case TANDEM_I8:
    return "|i1";
  case TANDEM_U8:
    return "|u1";
  case TANDEM_I16:
    return "<i2";
  case TANDEM_U16:
    return "<u2";
  case TANDEM_U32:
    return "<u4";
  case TANDEM_U64:
    return "<u8";
  case TANDEM_BF16:
    break;
  }
  return "";
}

namespace {

const char kMagic[] = "\x93NUMPY";

/// A cursor over the header dict, a Python literal such as
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
struct HeaderParser {
  const std::string &text;
  size_t pos = 0;

  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n'))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool parseString(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseWord(std::string &out) {
    skipSpace();
    size_t start = pos;
    while (pos < text.size() &&
           (isalnum(static_cast<unsigned char>(text[pos]))))
      ++pos;
    out = text.substr(start, pos - start);
    return !out.empty();
  }
  bool parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return false;
    for (;;) {
      if (consume(')'))
        return true;
      skipSpace();
      size_t start = pos;
      while (pos < text.size() &&
             isdigit(static_cast<unsigned char>(text[pos])))
        ++pos;
      if (start == pos || pos - start > 18)
        return false;
      shape.push_back(std::stoll(text.substr(start, pos - start)));
      skipSpace();
      if (consume(')'))
        return true;
      if (!consume(','))
        return false;
    }
  }
};

bool dtypeFromDescr(const std::string &descr, tandem_dtype_t &dtype,
                    std::string &problem) {
  if (descr == "<f4") {
    dtype = TANDEM_F32;
  } else if (descr == "<f2") {
    dtype = TANDEM_F16;
  } else if (descr == "<i8") {
    dtype = TANDEM_I64;
  } else if (descr == "<i4") {
    dtype = TANDEM_I32;
  } else if (descr == "|b1" || descr == "<b1") {
    dtype = TANDEM_BOOL;
  } else if (descr == "<f8") {
    dtype = TANDEM_F64;
  } else if (descr == "|i1" || descr == "<i1") {
    dtype = TANDEM_I8;
  } else if (descr == "|u1" || descr == "<u1") {
    dtype = TANDEM_U8;
  } else if (descr == "<i2") {
    dtype = TANDEM_I16;
  } else if (descr == "<u2") {
    dtype = TANDEM_U16;
  } else if (descr == "<u4") {
    dtype = TANDEM_U32;
  } else if (descr == "<u8") {
    dtype = TANDEM_U64;
  } else if (!descr.empty() && descr[0] == '>') {
    problem = "big-endian arrays ('" + descr +
              "') are not supported; save a little-endian array "
              "(arr.astype(arr.dtype.newbyteorder('<')))";
    return false;
  } else if (descr == "|O" || descr == "O") {
    problem = "object arrays are not supported";
    return false;
  } else {
    problem = "unsupported dtype '" + descr +
              "' (supported: <f8, <f4, <f2, <i8, <i4, <i2, |i1, <u8, <u4, "
              "<u2, |u1, |b1)";
    return false;
  }
  return true;
}

} // namespace

bool parseNpy(const std::string &name, const std::vector<unsigned char> &bytes,
              NpyArray &array, std::string &error) {
  auto fail = [&](const std::string &message) {
    error = name + ": " + message;
    return false;
  };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0)
    return fail("not a .npy file (bad magic)");
  unsigned major = bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = bytes[8] | (size_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated .npy header");
    headerLength = bytes[8] | (size_t(bytes[9]) << 8) |
                   (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major) +
                "." + std::to_string(bytes[7]));
  }
  if (headerLength > bytes.size() - headerStart)
    return fail("truncated .npy header");
  std::string header(bytes.begin() + headerStart,
                     bytes.begin() + headerStart + headerLength);

  HeaderParser parser{header};
  std::string descr;
  bool haveDescr = false, haveOrder = false, haveShape = false;
  bool fortran = false;
  std::vector<int64_t> shape;
  if (!parser.consume('{'))
    return fail("malformed .npy header: " + header);
  while (!parser.consume('}')) {
    std::string key;
    if (!parser.parseString(key) || !parser.consume(':'))
      return fail("malformed .npy header: " + header);
    if (key == "descr") {
      if (!parser.parseString(descr))
        return fail("unsupported .npy descr (structured arrays are not "
                    "supported): " +
                    header);
      haveDescr = true;
    } else if (key == "fortran_order") {
      std::string word;
      if (!parser.parseWord(word) || (word != "True" && word != "False"))
        return fail("malformed .npy header: " + header);
      fortran = word == "True";
      haveOrder = true;
    } else if (key == "shape") {
      if (!parser.parseShape(shape))
        return fail("malformed .npy shape in header: " + header);
      haveShape = true;
    } else {
      return fail("unexpected key '" + key + "' in .npy header");
    }
    if (!parser.consume(',')) {
      if (!parser.consume('}'))
        return fail("malformed .npy header: " + header);
      break;
    }
  }
  if (!haveDescr || !haveOrder || !haveShape)
    return fail("the .npy header lacks descr, fortran_order or shape");
  if (fortran)
    return fail("Fortran-order arrays are not supported; save a C-order "
                "array (np.ascontiguousarray)");
  std::string problem;
  if (!dtypeFromDescr(descr, array.dtype, problem))
    return fail(problem);

  uint64_t count = 1;
  for (int64_t extent : shape) {
    if (extent != 0 &&
        count > std::numeric_limits<int64_t>::max() / uint64_t(extent))
      return fail("shape is too large");
    count *= uint64_t(extent);
  }
  size_t dataStart = headerStart + headerLength;
  uint64_t dataBytes = count * tandem_dtype_size(array.dtype);
  if (count && dataBytes / count != tandem_dtype_size(array.dtype))
    return fail("shape is too large");
  uint64_t available = bytes.size() - dataStart;
  if (available != dataBytes)
    return fail("expected " + std::to_string(dataBytes) +
                " bytes of data for the shape, found " +
                std::to_string(available));
  if (array.dtype == TANDEM_BOOL)
    for (size_t i = dataStart; i < bytes.size(); ++i)
      if (bytes[i] > 1)
        return fail("bool element " + std::to_string(i - dataStart) +
                    " holds byte " + std::to_string(bytes[i]) +
                    "; bool elements must be 0 or 1");
  array.shape = std::move(shape);
  array.data.assign(bytes.begin() + dataStart, bytes.end());
  return true;
}

bool readNpy(const std::string &path, NpyArray &array, std::string &error,
             uint64_t maxBytes) {
  auto fail = [&](const std::string &message) {
    error = path + ": " + message;
    return false;
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the file type is
  // checked before anything is read.
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return fail(std::string("cannot open: ") + std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { close(fd); }
  } closer{fd};
  struct stat info;
  if (fstat(fd, &info) != 0)
    return fail(std::string("cannot stat: ") + std::strerror(errno));
  if (S_ISDIR(info.st_mode))
    return fail("is a directory, not a .npy file");
  if (!S_ISREG(info.st_mode))
    return fail("not a regular file (a device, FIFO or socket); .npy inputs "
                "must be regular files");
  uint64_t size = uint64_t(info.st_size);
  if (size > maxBytes)
    return fail("file is " + std::to_string(size) + " bytes, more than the " +
                std::to_string(maxBytes) + " bytes expected");
  std::vector<unsigned char> bytes;
  try {
    bytes.resize(size_t(size));
  } catch (const std::bad_alloc &) {
    return fail("out of memory reading " + std::to_string(size) + " bytes");
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = read(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (got < 0)
      return fail(std::string("read error: ") + std::strerror(errno));
    if (got == 0)
      return fail("file shrank while being read");
    done += size_t(got);
  }
  return parseNpy(path, bytes, array, error);
}

uint64_t npyMaxFileBytes(tandem_dtype_t dtype,
                         const std::vector<int64_t> &shape) {
  // Any header NumPy writes is far below 64 KiB (plus the 12-byte prefix);
  // allow that much on top of the data. Saturates instead of overflowing.
  const uint64_t slack = 65536 + 12;
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - slack;
  uint64_t bytes = tandem_dtype_size(dtype);
  for (int64_t extent : shape) {
    uint64_t e = uint64_t(extent < 0 ? 0 : extent);
    if (e && bytes > limit / e)
      return std::numeric_limits<uint64_t>::max();
    bytes *= e;
  }
  return bytes + slack;
}

bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error) {
  // bf16, which NumPy lacks, is written as its raw bits (<u2).
  std::string descr =
      array.dtype == TANDEM_BF16 ? "<u2" : npyDescr(array.dtype);
  if (descr.empty()) {
    error = path + ": cannot write " +
            std::string(tandem_dtype_name(array.dtype)) +
            " as .npy (NumPy has no standard type for it)";
    return false;
  }
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape +=
        std::to_string(array.shape[i]) +
        (array.shape.size() == 1 ? ","
                                 : (i + 1 < array.shape.size() ? ", " : ""));
  shape += ")";
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that the data starts on a 64-byte boundary; the
  // header ends with a newline.
  bool v2 = header.size() + 1 + 10 > 65535;
  size_t prefix = v2 ? 12 : 10;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      error = path + ": cannot write: " + std::strerror(errno);
      return false;
    }
    out.write(kMagic, 6);
    out.put(char(v2 ? 2 : 1));
    out.put(0);
    size_t length = header.size();
    out.put(char(length & 0xff));
    out.put(char((length >> 8) & 0xff));
    if (v2) {
      out.put(char((length >> 16) & 0xff));
      out.put(char((length >> 24) & 0xff));
    }
    out.write(header.data(), std::streamsize(header.size()));
    out.write(reinterpret_cast<const char *>(array.data.data()),
              std::streamsize(array.data.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      error = path + ": write failed";
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = path + ": cannot write: " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

} // namespace tandem
