// Times kernel variants of one pass side by side: each variant file defines
// one extern "C" kernel KERNEL_<i> (renamed by prep.sh) with the signature
// (const IN_T* in, OUT_T* out, unsigned batch); checks every variant's output
// against variant 0's and times a D2D copy of the same bytes.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include "variants.inc"
#define CK(x) do{cudaError_t e=(x); if(e!=cudaSuccess){printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);}}while(0)
typedef void (*kfn)(const IN_T*, OUT_T*, unsigned);
int main(int argc, char** argv) {
  size_t in_row = IN_ROW * sizeof(IN_T), out_row = OUT_ROW * sizeof(OUT_T);
  unsigned batch = (unsigned)((1ull << 30) / (in_row + out_row));
  IN_T* in; OUT_T* out; OUT_T* ref;
  CK(cudaMalloc(&in, batch * in_row)); CK(cudaMalloc(&out, batch * out_row)); CK(cudaMalloc(&ref, batch * out_row));
  { std::vector<unsigned> h(batch * in_row / 4); unsigned s = 12345; for (auto& x : h) { s = s * 1664525u + 1013904223u; float f = ((s >> 8) & 0xffff) / 65536.0f - 0.5f; x = *(unsigned*)&f; }
    if (sizeof(IN_T) / IN_SCALARS == 8) { std::vector<double> d(batch * in_row / 8); for (size_t i = 0; i < d.size(); i++) d[i] = ((i * 2654435761u) % 65536) / 65536.0 - 0.5; CK(cudaMemcpy(in, d.data(), batch * in_row, cudaMemcpyHostToDevice)); }
    else CK(cudaMemcpy(in, h.data(), batch * in_row, cudaMemcpyHostToDevice)); }
  unsigned grid = (batch + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<std::vector<float>> t(NVAR + 1);
  void* scratch; CK(cudaMalloc(&scratch, batch * (in_row + out_row)));
  for (int g = 0; g < 7; g++) for (int v = 0; v <= NVAR; v++) {
    for (int w = 0; w < 2; w++) { if (v < NVAR) kernels[v]<<<grid, THREADS>>>(in, out, batch); else CK(cudaMemcpyAsync(scratch, (char*)scratch + batch * (in_row + out_row) / 2, batch * (in_row + out_row) / 2, cudaMemcpyDeviceToDevice)); }
    cudaEventRecord(a);
    for (int r = 0; r < 10; r++) { if (v < NVAR) kernels[v]<<<grid, THREADS>>>(in, out, batch); else CK(cudaMemcpyAsync(scratch, (char*)scratch + batch * (in_row + out_row) / 2, batch * (in_row + out_row) / 2, cudaMemcpyDeviceToDevice)); }
    cudaEventRecord(b); CK(cudaEventSynchronize(b)); float ms; cudaEventElapsedTime(&ms, a, b); t[v].push_back(ms / 10);
  }
  CK(cudaGetLastError());
  size_t words = batch * out_row / 4; std::vector<float> h0(words), h1(words);
  float copy_ms; { auto c = t[NVAR]; std::sort(c.begin(), c.end()); copy_ms = c[3]; }
  for (int v = 0; v < NVAR; v++) {
    CK(cudaMemset(out, 0xff, batch * out_row)); kernels[v]<<<grid, THREADS>>>(in, out, batch); CK(cudaDeviceSynchronize());
    if (v == 0) CK(cudaMemcpy(h0.data(), out, batch * out_row, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h1.data(), out, batch * out_row, cudaMemcpyDeviceToHost));
    double diff = 0, mag = 0; size_t bad = 0;
    for (size_t i = 0; i < words; i++) { double d = (double)h1[i] - h0[i]; if (!(d == d)) bad++; else diff = std::max(diff, std::fabs(d)); mag = std::max(mag, (double)std::fabs(h0[i])); }
    auto c = t[v]; std::sort(c.begin(), c.end());
    printf("%-8s %-12s %.4f ms  %5.1f%% of copy (%.4f)  maxdiff %.2e of %.2e  nan %zu\n", NAME, names[v], c[3], 100 * copy_ms / c[3], copy_ms, diff, mag, bad);
  }
}
