#include "core/thread_pool.h"

#include <algorithm>

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

ThreadPool::ThreadPool(int num_threads) : num_threads_(std::max(1, num_threads)) {
  if (num_threads_ == 1) return;
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
