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
#include <memory>
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

// The CPUs this process may run on (its affinity mask; the hardware's count if that is unknown).
int UsableCpus();

// The threads an interpreter or a delegate starts for `requested`: at most the usable CPUs.
// pthreadpool's workers spin while they wait for each other, so a thread without a CPU of its own
// stalls every parallel op until the scheduler runs it: on this 2-CPU VM coral MobileNet v2 took
// 140 ms a run at 3 threads and 236 ms at 4, against 0.95 ms at 2.
int ThreadsToStart(int requested);

class ThreadPool {
 public:
  // allow_regions false: RunRegion just calls its body (for comparisons).
  explicit ThreadPool(int num_threads, bool allow_regions = true);
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

  // A parallel region: runs body() on the calling thread while the pool's other threads wait for
  // its ParallelFor calls in a spin loop, as in an OpenMP parallel region. Each of those calls
  // then costs a few cache lines between the cores (0.8-1.3 us for two tasks on this VM, whose
  // vCPUs sit on two core complexes) instead of a pthreadpool dispatch (1.4-1.7 us); opening and
  // closing the region costs about 1.6 us more than one dispatch (Subgraph::PlanRegions). And
  // every ParallelFor keeps pthreadpool's split: thread t starts on the t-th contiguous share and
  // steals from the others' ends when out of work, so each thread keeps its rows from one call to
  // the next. Within body, the pool's pthreadpool must not be used (XNNPACK would wait on the
  // threads that body holds): the interpreter runs delegate nodes outside regions. A region inside
  // a region, or on a pool without regions, just calls body().
  void RunRegion(const std::function<void()>& body);
  // Whether RunRegion holds the other threads: the pool has several threads and the process may
  // run on at least as many CPUs (spinning threads that share a CPU would wait on each other).
  bool regions_enabled() const { return region_ != nullptr && regions_on_; }
  // Turns regions off or back on (where they can be), between calls: for A/B measurements in one
  // process, where two pools would spin against each other.
  void SetRegionsEnabled(bool on) { regions_on_ = on; }
  // Whether the calling thread is running the body of a region (of any pool).
  static bool InRegion();

 private:
  struct Region;
  void WorkerLoop();
  void RunTasks(std::unique_lock<std::mutex>& lock);
  // Runs the tasks on the backend (pthreadpool or the std::thread workers).
  void DispatchToBackend(int64_t num_tasks, const std::function<void(int64_t)>& fn);
  // One ParallelFor inside a region, called by the thread running its body.
  void RunPhase(int64_t num_tasks, const std::function<void(int64_t)>& fn);

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
  std::unique_ptr<Region> region_;  // null when regions are not enabled
  bool regions_on_ = true;
  std::mutex region_mutex_;         // one region at a time
};

}  // namespace edgerun
