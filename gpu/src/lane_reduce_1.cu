/* Part 1 of the reducing lane kernels (gpu/CMakeLists.txt, CSG_REDUCE_PARTS):
 * the dtypes whose catalog index is 1 modulo CSG_REDUCE_PARTS. A file in
 * the source tree, not generated, so that its nvcc command is the same in
 * every build folder (ccache: docs/ci.md, section 9). */
#define CSG_REDUCE_PART 1
#include "lane_reduce.cuh"
