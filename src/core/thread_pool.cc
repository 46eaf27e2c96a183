#include "core/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>

#if EDGERUN_THREADPOOL_PTHREADPOOL
#include <pthreadpool.h>
#endif

namespace edgerun {

double ScheduledFinish(const double* costs, int64_t n, int threads) {
  threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, n)));
  if (n <= 0) return 0.0;
  struct Share {
    int64_t next, end;
    double busy_until = 0.0;
  };
  std::vector<Share> shares(static_cast<size_t>(threads));
  const int64_t per = n / threads, longer = n % threads;
  int64_t start = 0;
  for (int i = 0; i < threads; ++i) {
    const int64_t length = per + (i < longer ? 1 : 0);
    shares[i] = {start, start + length};
    start += length;
  }
  double finish = 0.0;
  std::vector<bool> done(static_cast<size_t>(threads), false);
  for (int left = threads; left > 0;) {
    // The thread that is free first takes its next task, or steals one.
    int i = -1;
    for (int t = 0; t < threads; ++t) {
      if (!done[t] && (i < 0 || shares[t].busy_until < shares[i].busy_until)) i = t;
    }
    Share& own = shares[i];
    if (own.next < own.end) {
      own.busy_until += costs[own.next++];
      continue;
    }
    bool stole = false;
    for (int step = 1; step < threads && !stole; ++step) {
      Share& other = shares[(i + threads - step) % threads];
      if (other.next < other.end) {
        own.busy_until += costs[--other.end];
        stole = true;
      }
    }
    if (!stole) {
      finish = std::max(finish, own.busy_until);
      done[i] = true;
      --left;
    }
  }
  return finish;
}

int UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }
  return std::max(1, CPU_COUNT(&set));
}

int ThreadsToStart(int requested) { return std::max(1, std::min(requested, UsableCpus())); }

// ---- parallel regions

namespace {

// A share of a phase's work is one 64-bit word: the phase's generation (16 bits) and the share's
// [next, end) in units of work (24 bits each). Its owner takes units from the front, other threads
// steal from the back, each by one compare-and-swap; a word left from an earlier phase has another
// generation or next == end, so a thread that wakes late claims nothing of a phase it missed.
constexpr int kUnitBits = 24;
constexpr uint64_t kUnitMask = (uint64_t{1} << kUnitBits) - 1;
constexpr int64_t kMaxUnits = static_cast<int64_t>(kUnitMask);
constexpr uint64_t kGenerationMask = 0xFFFF;

uint64_t PackShare(uint64_t generation, uint64_t next, uint64_t end) {
  return ((generation & kGenerationMask) << (2 * kUnitBits)) | (next << kUnitBits) | end;
}
uint64_t ShareGeneration(uint64_t word) { return word >> (2 * kUnitBits); }
uint64_t ShareNext(uint64_t word) { return (word >> kUnitBits) & kUnitMask; }
uint64_t ShareEnd(uint64_t word) { return word & kUnitMask; }

// One step of a spin wait: a pause while the other side is expected soon, then the CPU is offered
// to other threads (a region's threads outlive any one op; a long serial node must not starve
// another process's thread on the same CPU).
void SpinPause(uint32_t& spins) {
  if (++spins < (1u << 16)) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  } else {
    sched_yield();
  }
}

thread_local const ThreadPool* region_body_pool = nullptr;  // set while a thread runs a region's body

}  // namespace

struct ThreadPool::Region {
  // Written by the body's thread once per phase, read by the others.
  struct alignas(64) Post {
    std::atomic<uint64_t> generation{0};
    std::atomic<bool> closed{true};
    std::atomic<const std::function<void(int64_t)>*> fn{nullptr};
    std::atomic<int64_t> num_tasks{0};
    std::atomic<int64_t> tasks_per_unit{1};
  };
  struct alignas(64) Share {
    std::atomic<uint64_t> word{0};
  };
  struct alignas(64) Counter {
    std::atomic<int64_t> value{0};
  };

  explicit Region(int threads) : shares(static_cast<size_t>(threads)) {}

  // Takes a unit of the phase `generation`: the next of the thread's own share, else the last
  // of another's (the nearest before it first, as pthreadpool steals). -1 when none is left.
  int64_t Claim(int slot, uint64_t generation) {
    const int threads = static_cast<int>(shares.size());
    const uint64_t gen = generation & kGenerationMask;
    std::atomic<uint64_t>& own = shares[static_cast<size_t>(slot)].word;
    uint64_t w = own.load(std::memory_order_acquire);
    while (ShareGeneration(w) == gen && ShareNext(w) < ShareEnd(w)) {
      if (own.compare_exchange_weak(w, PackShare(gen, ShareNext(w) + 1, ShareEnd(w)), std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
        return static_cast<int64_t>(ShareNext(w));
      }
    }
    for (int step = 1; step < threads; ++step) {
      std::atomic<uint64_t>& other = shares[static_cast<size_t>((slot + threads - step) % threads)].word;
      w = other.load(std::memory_order_acquire);
      while (ShareGeneration(w) == gen && ShareNext(w) < ShareEnd(w)) {
        if (other.compare_exchange_weak(w, PackShare(gen, ShareNext(w), ShareEnd(w) - 1), std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
          return static_cast<int64_t>(ShareEnd(w) - 1);
        }
      }
    }
    return -1;
  }

  // Runs units of the phase until none is left; returns how many this thread ran. The phase's
  // function and sizes are read after a claim: the phase cannot end while a claimed unit runs.
  // The other threads count each unit as soon as it is done, before looking for another (which
  // reads the other threads' shares): the body's thread waits on that count.
  int64_t RunUnits(int slot, uint64_t generation, bool count_done) {
    int64_t ran = 0;
    for (int64_t unit; (unit = Claim(slot, generation)) >= 0; ++ran) {
      const auto& fn = *post.fn.load(std::memory_order_relaxed);
      const int64_t n = post.num_tasks.load(std::memory_order_relaxed);
      const int64_t per = post.tasks_per_unit.load(std::memory_order_relaxed);
      const int64_t end = std::min(n, (unit + 1) * per);
      for (int64_t task = unit * per; task < end; ++task) fn(task);
      if (count_done) done.value.fetch_add(1, std::memory_order_release);
    }
    return ran;
  }

  // A thread other than the body's, from the region's start until it closes.
  void Work(int slot) {
    uint64_t seen = start_generation;
    for (;;) {
      uint64_t generation;
      uint32_t spins = 0;
      while ((generation = post.generation.load(std::memory_order_acquire)) == seen) {
        if (post.closed.load(std::memory_order_acquire)) return;
        SpinPause(spins);
      }
      seen = generation;
      RunUnits(slot, generation, /*count_done=*/true);
    }
  }

  Post post;
  std::vector<Share> shares;   // one per thread; the body's thread is slot 0
  Counter done;                // units the other threads have finished in the current phase
  Counter next_slot;           // slots handed to the other threads as they join
  uint64_t start_generation = 0;
  bool in_phase = false;       // the body's thread is inside a ParallelFor (nested calls run inline)
};

bool ThreadPool::InRegion() { return region_body_pool != nullptr; }

void ThreadPool::RunRegion(const std::function<void()>& body) {
  if (!regions_enabled() || region_body_pool != nullptr) {
    body();
    return;
  }
  std::lock_guard<std::mutex> one_region(region_mutex_);
  Region& r = *region_;
  r.start_generation = r.post.generation.load(std::memory_order_relaxed);
  r.next_slot.value.store(1, std::memory_order_relaxed);
  r.post.closed.store(false, std::memory_order_release);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> body_taken{false};
  std::exception_ptr failure;
  DispatchToBackend(num_threads_, [&](int64_t) {
    if (std::this_thread::get_id() == caller && !body_taken.exchange(true)) {
      region_body_pool = this;
      try {
        body();
      } catch (...) {
        failure = std::current_exception();  // rethrown on the caller, outside the backend's C code
      }
      region_body_pool = nullptr;
      r.post.closed.store(true, std::memory_order_release);
      return;
    }
    if (r.post.closed.load(std::memory_order_acquire)) return;  // joined after the body ended
    const int64_t slot = r.next_slot.value.fetch_add(1, std::memory_order_relaxed);
    if (slot < num_threads_) r.Work(static_cast<int>(slot));
  });
  if (failure) std::rethrow_exception(failure);
}

void ThreadPool::RunPhase(int64_t num_tasks, const std::function<void(int64_t)>& fn) {
  Region& r = *region_;
  const int64_t per = (num_tasks + kMaxUnits - 1) / kMaxUnits;
  const int64_t units = (num_tasks + per - 1) / per;
  const uint64_t generation = r.post.generation.load(std::memory_order_relaxed) + 1;
  r.post.fn.store(&fn, std::memory_order_relaxed);
  r.post.num_tasks.store(num_tasks, std::memory_order_relaxed);
  r.post.tasks_per_unit.store(per, std::memory_order_relaxed);
  r.done.value.store(0, std::memory_order_relaxed);
  // pthreadpool's split: contiguous shares, the first units % threads one unit longer.
  const int64_t base = units / num_threads_, longer = units % num_threads_;
  int64_t start = 0;
  for (int t = 0; t < num_threads_; ++t) {
    const int64_t length = base + (t < longer ? 1 : 0);
    r.shares[static_cast<size_t>(t)].word.store(
        PackShare(generation, static_cast<uint64_t>(start), static_cast<uint64_t>(start + length)),
        std::memory_order_release);
    start += length;
  }
  r.post.generation.store(generation, std::memory_order_release);
  r.in_phase = true;
  const int64_t own = r.RunUnits(0, generation, /*count_done=*/false);
  r.in_phase = false;
  uint32_t spins = 0;
  while (r.done.value.load(std::memory_order_acquire) != units - own) SpinPause(spins);
}

ThreadPool::ThreadPool(int num_threads, bool allow_regions) : num_threads_(std::max(1, num_threads)) {
  if (num_threads_ == 1) return;
  if (allow_regions && UsableCpus() >= num_threads_) region_ = std::make_unique<Region>(num_threads_);
#if EDGERUN_THREADPOOL_PTHREADPOOL
  pthreadpool_ = pthreadpool_create(static_cast<size_t>(num_threads_));
  if (pthreadpool_ != nullptr) return;
  // Out of threads or memory: fall back to the std::thread backend rather than fail.
#endif
  for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
#if EDGERUN_THREADPOOL_PTHREADPOOL
  if (pthreadpool_ != nullptr) pthreadpool_destroy(pthreadpool_);
#endif
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_ready_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::RunTasks(std::unique_lock<std::mutex>& lock) {
  while (fn_ != nullptr && next_task_ < num_tasks_) {
    const int64_t task = next_task_++;
    const auto* fn = fn_;
    lock.unlock();
    (*fn)(task);
    lock.lock();
    if (++tasks_done_ == num_tasks_) work_done_.notify_all();
  }
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    work_ready_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    RunTasks(lock);
  }
}

void ThreadPool::ParallelFor(int64_t num_tasks, const std::function<void(int64_t)>& fn) {
  if (num_tasks <= 0) return;
  if (num_threads_ == 1 || num_tasks == 1) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t);
    return;
  }
  if (region_ != nullptr && !region_->post.closed.load(std::memory_order_acquire)) {
    if (region_body_pool == this && !region_->in_phase) {
      RunPhase(num_tasks, fn);
    } else {
      // A task of a phase, or another thread, while this pool's threads are held: inline.
      for (int64_t t = 0; t < num_tasks; ++t) fn(t);
    }
    return;
  }
  DispatchToBackend(num_tasks, fn);
}

void ThreadPool::DispatchToBackend(int64_t num_tasks, const std::function<void(int64_t)>& fn) {
#if EDGERUN_THREADPOOL_PTHREADPOOL
  if (pthreadpool_ != nullptr) {
    // pthreadpool hands out tasks dynamically (work stealing) and serializes concurrent callers.
    pthreadpool_parallelize_1d(
        pthreadpool_,
        [](void* context, size_t task) {
          (*static_cast<const std::function<void(int64_t)>*>(context))(static_cast<int64_t>(task));
        },
        const_cast<std::function<void(int64_t)>*>(&fn), static_cast<size_t>(num_tasks), 0);
    return;
  }
#endif
  std::lock_guard<std::mutex> one_caller(call_mutex_);
  std::unique_lock<std::mutex> lock(mutex_);
  fn_ = &fn;
  num_tasks_ = num_tasks;
  next_task_ = 0;
  tasks_done_ = 0;
  ++generation_;
  work_ready_.notify_all();
  RunTasks(lock);
  work_done_.wait(lock, [&] { return tasks_done_ == num_tasks_; });
  fn_ = nullptr;
}

}  // namespace edgerun
