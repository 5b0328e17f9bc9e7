// The ranks of one job and the few collectives data-parallel training needs (the MPI model of
// llm.c's train_gpt2.cu and PyTorch DDP: every rank holds the whole model). Two builds, chosen at
// configure time: comm_mpi.cpp (CMake found MPI; MPI_COMM_WORLD when the process was started by
// mpirun) and comm_single.cpp (no MPI: always one rank, every call a no-op or identity).
// Even in the MPI build, a process not started by mpirun never calls MPI: it is rank 0 of 1.
// Every collective must be called by every rank in the same order (MPI's rule).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace llm0::comm {

/// Whether this build has MPI (CMake found it at configure time).
bool built_with_mpi();

/// Starts MPI (MPI_Init_thread, MPI_THREAD_FUNNELED: only the calling thread talks to MPI) on
/// the first call when the process was started by an MPI launcher (mpirun sets
/// OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK), or adopts MPI already started by the host
/// program; otherwise nothing happens and the job is one rank. Later calls do nothing. Every
/// function below calls it. Throws llm0::Error if MPI fails to start.
void init();

/// This process's rank in [0, size()), and the number of ranks of the job (1 without MPI).
int rank();
int size();
/// Ranks of the job on this machine (MPI_COMM_TYPE_SHARED); 1 without MPI.
int local_size();

/// Whether init() has started (or adopted) MPI with more than one rank; never starts MPI itself.
bool several_ranks();

/// In-place element-wise sum over ranks of data[0, n) (MPI_Allreduce, MPI_IN_PLACE). The result
/// is reduced once and sent to all, so every rank gets the same bits. n may exceed 2^31.
void sum(float* data, size_t n);
void sum(double* data, size_t n);
/// Starts an in-place sum like sum(float*) without waiting (MPI_Iallreduce); the buffer must not
/// be touched until finish_sums(). Ranks must start the same sums in the same order.
void start_sum(float* data, size_t n);
/// Waits for every sum started since the last call (MPI_Waitall).
void finish_sums();
/// In-place element-wise maximum over ranks of data[0, n).
void max(double* data, size_t n);
/// x of every rank, indexed by rank (MPI_Allgather).
std::vector<uint64_t> gather(uint64_t x);
/// Returns when every rank has called it (MPI_Barrier).
void barrier();

/// Ends the whole job at once with exit status `code` (MPI_Abort: mpirun stops every rank, none
/// is left waiting in a collective). Without MPI (or one rank) it just exits the process.
[[noreturn]] void abort(int code);
/// Shuts MPI down (MPI_Finalize) if init() started it; call once at the end of the program.
void finalize();

}  // namespace llm0::comm
