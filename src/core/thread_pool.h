// ThreadPool: one per interpreter, shared by the builtin kernels and the XNNPACK delegate. Kernels
// split work into tasks with ParallelFor; the calling thread takes part, so a pool of N threads
// starts N - 1 workers.
//
// Two backends, chosen at build time:
//  - pthreadpool (the library XNNPACK itself runs on), when edgerun is built with the XNNPACK
//    delegate. The interpreter's kernels and XNNPACK's operators then take turns on the same
//    workers, so `--threads 2` means two busy threads, not two plus XNNPACK's own two.
//  - std::thread + condition variables otherwise, and in ThreadSanitizer builds: pthreadpool
//    from Debian is not instrumented, so TSan could not see its synchronization and would report
//    every kernel write made on a worker as a race. There the delegate runs single-threaded.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

struct pthreadpool;  // pthreadpool.h's pthreadpool_t is `struct pthreadpool*`

namespace edgerun {

// When `threads` threads finish tasks of the given costs (in any unit) as ParallelFor deals them
// out: each thread starts on a contiguous share (pthreadpool's split, the first n % threads shares
// one task longer) and, out of work, takes the last task left of the nearest thread before it.
// The std::thread backend hands tasks out in order instead, which finishes no later on the plans
// made with this (equal tasks). For kernels that choose how to cut their work.
double ScheduledFinish(const double* costs, int64_t n, int threads);

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }
  // Runs fn(task) for every task in [0, num_tasks) and returns when all are done. Calls from
  // several threads at once take turns; a task must not call ParallelFor on its own pool.
  void ParallelFor(int64_t num_tasks, const std::function<void(int64_t)>& fn);

  // The pthreadpool this pool runs on, for handing to XNNPACK; null when the pool has one thread
  // (XNNPACK then runs on the calling thread) or uses the std::thread backend.
  struct pthreadpool* pthreadpool() const { return pthreadpool_; }

 private:
  void WorkerLoop();
  void RunTasks(std::unique_lock<std::mutex>& lock);

  int num_threads_;
  struct pthreadpool* pthreadpool_ = nullptr;
  // std::thread backend
  std::mutex call_mutex_;  // one ParallelFor at a time
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  const std::function<void(int64_t)>* fn_ = nullptr;
  int64_t num_tasks_ = 0;
  int64_t next_task_ = 0;
  int64_t tasks_done_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace edgerun
