// Build tool: turns a rank file from build_ranks.mjs into the image that
// RankTable::FromImage uses in place (the lookup table built once, here,
// instead of in every process). cmake/layer_text.cmake runs it:
//
//   ctxkit_rank_image <encoding> <rank file> <image file>
//
// The image is checked by loading it back before it is written.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "text/rank_table.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s ENCODING RANK_FILE IMAGE_FILE\n", argv[0]);
    return 2;
  }
  const std::string name = argv[1];
  std::ifstream in(argv[2], std::ios::binary);
  std::vector<unsigned char> ranks((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  if (!in.is_open() || ranks.empty()) {
    std::fprintf(stderr, "rank_image: cannot read %s\n", argv[2]);
    return 1;
  }
  auto table = ctxkit::text::RankTable::Parse(ranks, name);
  if (!table.ok()) {
    std::fprintf(stderr, "rank_image: %s\n", table.status().ToString().c_str());
    return 1;
  }
  const std::string image = (*table)->Image(name);
  // Loaded back from 4-aligned memory, as the embedded copy will be.
  std::vector<uint32_t> aligned((image.size() + 3) / 4);
  std::copy(image.begin(), image.end(),
            reinterpret_cast<char*>(aligned.data()));
  auto check = ctxkit::text::RankTable::FromImage(
      {reinterpret_cast<const unsigned char*>(aligned.data()), image.size()},
      name, ctxkit::text::RankTable::ImageCheck::kFull);
  if (!check.ok()) {
    std::fprintf(stderr, "rank_image: %s\n", check.status().ToString().c_str());
    return 1;
  }
  const std::string tmp = std::string(argv[3]) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(image.data(), static_cast<std::streamsize>(image.size()));
    if (!out.good()) {
      std::fprintf(stderr, "rank_image: cannot write %s\n", tmp.c_str());
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), argv[3]) != 0) {
    std::perror("rank_image: rename");
    return 1;
  }
  return 0;
}
