// The output folder of a training run: checked before any data is loaded, so that a run never silently
// replaces an earlier one and an unwritable folder is reported before training rather than at its end.
#pragma once
#include <string>
#include <vector>

namespace tilegrad::training {

struct RunFolderOptions {
  bool resume = false;      // continue the run in the folder (or from resume_from)
  bool overwrite = false;   // replace the run in the folder: every file of it is removed first
  std::string resume_from;  // a checkpoint elsewhere ("" : <folder>/checkpoint.bin)
};

// Names of the files and folders a run writes into its folder (renders/ is a folder).
const std::vector<std::string>& run_outputs();
// The checkpoint a run in `folder` writes and resumes from.
std::string checkpoint_path(const std::string& folder);

// Creates the folder when missing and checks, in this order:
//  - resume and overwrite are not both set (InvalidArgument);
//  - the folder can be created and written (IoError naming it and the reason; a probe file is written and
//    removed);
//  - resuming: the checkpoint to resume from exists (IoError);
//  - neither resuming nor overwriting: the folder holds no output of an earlier run (IoError listing them and
//    naming the resume and overwrite options).
void check_run_folder(const std::string& folder, const RunFolderOptions& options);

// Removes every output of an earlier run from the folder (run_outputs() and their temporaries), nothing else.
// Returns the names removed.
std::vector<std::string> clear_previous_run(const std::string& folder);

}  // namespace tilegrad::training
