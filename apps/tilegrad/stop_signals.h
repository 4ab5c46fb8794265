// Stop requests for long commands: SIGINT (Ctrl-C), SIGTERM (kill, timeout, batch schedulers, docker stop) and
// SIGHUP (a closed terminal or dropped SSH session) set a flag that the command polls at safe points (training:
// between iterations, then it checkpoints). A second signal ends the process at once. SIGPIPE is ignored
// meanwhile, so that a vanished terminal or pipe cannot kill the process before it saves its work.
#pragma once
#include <csignal>

namespace tilegrad::cli {

class StopSignals {
 public:
  StopSignals();   // installs the handlers
  ~StopSignals();  // restores the previous ones
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  bool requested() const;
  int signal() const;  // the first signal received (0: none)
  const char* name() const;
  // The conventional exit status of a process ended by that signal: 128 + its number.
  int exit_status() const { return 128 + signal(); }

 private:
  struct sigaction m_previous[4];
};

}  // namespace tilegrad::cli
