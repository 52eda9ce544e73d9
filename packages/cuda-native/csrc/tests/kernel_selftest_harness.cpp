// The self-test's host code built as plain C++ against fake_cuda/cuda_runtime.h (see
// CMakeLists.txt: kernel_selftest_harness). Including the .cu keeps one source of truth without
// asking CMake to compile a .cu file as C++.
#include "kernel_selftest.cu"
