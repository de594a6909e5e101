#pragma once
// `twice explore --shard K/N` and `--shard auto`: which runs this process
// does. "auto" reads the index and count the engine running it sets:
//
//   Slurm job array      SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT (and
//                        SLURM_ARRAY_TASK_MIN: `--array=1-4` numbers from 1)
//   Kubernetes Indexed   JOB_COMPLETION_INDEX, with --shards N (the Job's
//   Job                  completions; Kubernetes sets no variable for it)
//   GitLab parallel:     CI_NODE_INDEX (from 1), CI_NODE_TOTAL
//
// (Slurm's sbatch(1) "OUTPUT ENVIRONMENT VARIABLES"; Kubernetes' "Indexed
// Job" in the Job concept page; GitLab's CI/CD `parallel` keyword.) A GitHub
// Actions matrix sets none: pass `--shard ${{ matrix.shard }}/N`.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <twice/explore/explore.hpp>

namespace twice::cli {

struct shard_choice {
  std::optional<explore::shard> part;  // set exactly when error is empty
  std::string error;                   // "--shard auto: ..." naming what is missing or wrong
};

// `shards`: --shards N, 0 when not given. `getenv` reads the environment.
shard_choice parse_shard_argument(std::string_view text, std::size_t shards,
                                  const std::function<const char*(const char*)>& getenv);

}  // namespace twice::cli
