// ByteSource: a sized, randomly readable run of bytes.
//
// The exploration algorithms (line index, JSON item scan, search) read their
// input through this interface in bounded blocks, so they work the same on a
// std::string in memory and on a stored value read range by range from disk
// (src/explore/ adapts View::ReadRange). None of them ever asks for the
// whole source at once unless the caller's range covers it.
//
// Thread safety: implementations need not be thread-safe; one algorithm
// uses one source at a time.

#ifndef CTXKIT_TEXT_BYTE_SOURCE_H_
#define CTXKIT_TEXT_BYTE_SOURCE_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::text {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // The number of bytes in the source. Constant for the source's life.
  virtual uint64_t size() const = 0;

  // Replaces *out with the bytes [offset, min(offset + length, size())).
  // An offset at or past size() yields "". Short reads happen only at the
  // end of the source.
  virtual Status Read(uint64_t offset, uint64_t length, std::string* out) = 0;

  // Total bytes handed out by Read so far (what the algorithms cost).
  uint64_t bytes_read() const { return bytes_read_; }

 protected:
  void CountRead(uint64_t n) { bytes_read_ += n; }

 private:
  uint64_t bytes_read_ = 0;
};

// Scans that stop early (line and JSON item lookups) read this much first,
// then double the read each time up to their block size: a lookup near the
// start reads little, a long scan reads large blocks.
inline constexpr uint64_t kFirstScanReadBytes = 64ull << 10;

// A ByteSource over bytes the caller keeps alive.
class StringByteSource : public ByteSource {
 public:
  explicit StringByteSource(std::string_view data) : data_(data) {}

  uint64_t size() const override { return data_.size(); }

  Status Read(uint64_t offset, uint64_t length, std::string* out) override {
    if (offset >= data_.size()) {
      out->clear();
      return Status::Ok();
    }
    const uint64_t n = std::min<uint64_t>(length, data_.size() - offset);
    out->assign(data_.substr(offset, n));
    CountRead(n);
    return Status::Ok();
  }

 private:
  std::string_view data_;
};

// The default block size of the streaming algorithms: large enough that a
// read's fixed cost vanishes, small enough that memory stays bounded.
inline constexpr uint64_t kDefaultBlockBytes = 1ull << 20;

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_BYTE_SOURCE_H_
