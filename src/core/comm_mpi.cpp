// MPI build of comm.h (compiled only when CMake found MPI; comm_single.cpp otherwise).
// MPI 3.1 standard: MPI_Init_thread §12.4.3, MPI_Allreduce §5.9.6, MPI_Comm_split_type §6.4.2.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>

#include "core/check.h"
#include "core/comm.h"

namespace llm0::comm {

namespace {

std::vector<MPI_Request> g_pending;  // sums started by start_sum()
bool g_active = false;   // MPI is in use (started here or by the host program)
bool g_started = false;  // started by init(): finalize() shuts it down
int g_rank = 0, g_size = 1, g_local = 1;

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

void ok(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  LLM0_FAIL("MPI {} failed: {}", what, std::string(text, (size_t)len));
}

// MPI counts are int: a long buffer goes in chunks of at most 2^30 elements.
template <class T>
void allreduce(T* data, size_t n, MPI_Datatype type, MPI_Op op) {
  init();
  if (g_size == 1) return;
  constexpr size_t kChunk = size_t{1} << 30;
  for (size_t at = 0; at < n; at += kChunk)
    ok(MPI_Allreduce(MPI_IN_PLACE, data + at, (int)std::min(kChunk, n - at), type, op,
                     MPI_COMM_WORLD), "MPI_Allreduce");
}

}  // namespace

bool built_with_mpi() { return true; }

void init() {
  static bool done = false;
  if (done) return;
  done = true;
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    if (!launched_by_mpirun()) return;
    int provided = 0;
    ok(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    g_started = true;
  }
  g_active = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // errors become llm0::Error
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm node;
  ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
     "MPI_Comm_split_type");
  MPI_Comm_size(node, &g_local);
  MPI_Comm_free(&node);
}

int rank() { return init(), g_rank; }
int size() { return init(), g_size; }
int local_size() { return init(), g_local; }
bool several_ranks() { return g_active && g_size > 1; }

void sum(float* data, size_t n) { allreduce(data, n, MPI_FLOAT, MPI_SUM); }
void sum(double* data, size_t n) { allreduce(data, n, MPI_DOUBLE, MPI_SUM); }
void max(double* data, size_t n) { allreduce(data, n, MPI_DOUBLE, MPI_MAX); }

void start_sum(float* data, size_t n) {
  init();
  if (g_size == 1) return;
  constexpr size_t kChunk = size_t{1} << 30;
  for (size_t at = 0; at < n; at += kChunk) {
    g_pending.emplace_back();
    ok(MPI_Iallreduce(MPI_IN_PLACE, data + at, (int)std::min(kChunk, n - at), MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD, &g_pending.back()), "MPI_Iallreduce");
  }
  int done = 0;  // OpenMPI progresses non-blocking collectives only inside MPI calls: poll once
  ok(MPI_Testall((int)g_pending.size(), g_pending.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
}

void finish_sums() {
  if (g_pending.empty()) return;
  ok(MPI_Waitall((int)g_pending.size(), g_pending.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  g_pending.clear();
}

std::vector<uint64_t> gather(uint64_t x) {
  init();
  std::vector<uint64_t> all((size_t)g_size, x);
  if (g_size > 1)
    ok(MPI_Allgather(&x, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD),
       "MPI_Allgather");
  return all;
}

void barrier() {
  init();
  if (g_size > 1) ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

void abort(int code) {
  if (g_active && g_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

void finalize() {
  if (!g_started) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
  g_started = false;
}

}  // namespace llm0::comm
