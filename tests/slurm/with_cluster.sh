#!/usr/bin/env bash
# with_cluster.sh WORKDIR CMD...
#
# Runs CMD against a single-node Slurm cluster of its own on this machine,
# then stops that cluster whatever happened. The cluster is munged with a
# fresh key and its own socket, slurmctld and slurmd from a slurm.conf
# generated here (free ports found now, this host as the one node, no
# cgroups: it works in a container), with every key, state, spool, log and
# pid file under WORKDIR/cluster. Nothing of the machine's own Slurm or
# MUNGE (/etc/slurm, /etc/munge, /run/munge, ports 6817-6818) is read or
# touched, so system services, running or not, do not matter.
#
# CMD runs with SLURM_CONF pointing at the cluster (sinfo, sbatch, squeue
# and scancel then talk to it) and with the cluster's node name in
# TWICE_SLURM_NODE; its exit status is this script's. On EXIT, INT or TERM
# (a script started in the background ignores INT: send it TERM), jobs
# still queued or running are cancelled, then exactly the processes
# started here are stopped by PID (TERM, then KILL after a bounded wait):
# CMD, slurmd, slurmctld and munged, and any process that inherited this
# cluster's marker variable (a job's slurmstepd or its script, which
# outlive slurmd by design). WORKDIR/cluster is then removed; the rest of
# WORKDIR (CMD's outputs) is left to the caller.
#
# If the cluster does not come up (60 s at most), the daemons' logs go to
# stderr and the exit status is 1.
set -euo pipefail

if (($# < 2)); then
  echo "usage: with_cluster.sh WORKDIR CMD..." >&2
  exit 2
fi
workdir=$1; shift

for tool in munged slurmctld slurmd sinfo sbatch squeue scancel; do
  if ! command -v "$tool" >/dev/null; then
    echo "with_cluster: $tool not found: install Debian's slurm-wlm and munge (scripts/setup.sh does)" >&2
    exit 1
  fi
done

created_workdir=no
[ -d "$workdir" ] || created_workdir=yes
mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)
run=$workdir/cluster

# Every process started here, and every job process, carries this variable
# (slurmd passes its environment to slurmstepd; sbatch exports the
# submitter's to the job), which finds them by PID at the end even after
# their parent is gone.
marker=TWICE_SLURM_CLUSTER=$run

# PIDs of live processes (other than this shell) whose environment has the
# marker.
marked_pids() {
  local environ pid var
  local -a vars
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}; pid=${pid%/environ}
    [ "$pid" != $$ ] || continue
    { mapfile -d '' -t vars < "$environ"; } 2>/dev/null || continue
    for var in "${vars[@]}"; do
      if [ "$var" = "$marker" ]; then
        echo "$pid"
        break
      fi
    done
  done
}

# A cluster directory left by a run that was killed outright (SIGKILL: no
# trap runs) is removed, unless something of it still runs.
if [ -e "$run" ]; then
  left=$(marked_pids | tr '\n' ' ')
  if [ -n "$left" ]; then
    echo "with_cluster: $run is in use by PIDs $left(another cluster, or one killed outright: stop them)" >&2
    exit 1
  fi
  rm -rf "$run"
fi
# munged refuses a socket, key or log directory that others may write to,
# and a socket directory that others may not enter.
mkdir -m 0755 "$run" "$run/munge" "$run/state" "$run/spool" "$run/log"
export "${marker?}"

pids=()        # munged slurmctld slurmd, in start order
cmd_pid=
cleaned=no

# stop GRACE PID...: TERM, then KILL whatever is left after GRACE seconds.
# shellcheck disable=SC2317  # called from the EXIT trap only
stop() {
  local grace=$1 pid live i; shift
  (($#)) || return 0
  kill -TERM "$@" 2>/dev/null || true
  for ((i = 0; i < grace * 10; i++)); do
    live=()
    for pid in "$@"; do
      kill -0 "$pid" 2>/dev/null && live+=("$pid")
    done
    ((${#live[@]})) || return 0
    sleep 0.1
  done
  echo "with_cluster: killing ${live[*]} (still running $grace s after TERM)" >&2
  kill -KILL "${live[@]}" 2>/dev/null || true
}

# shellcheck disable=SC2317  # the EXIT trap
cleanup() {
  local status=$? pid
  [ "$cleaned" = no ] || return 0
  cleaned=yes
  trap '' INT TERM
  [ -z "$cmd_pid" ] || stop 10 "$cmd_pid"
  # Jobs outlive slurmctld and slurmd by design: cancel them while the
  # controller still answers, and give it a moment to reach them.
  if ((${#pids[@]} >= 2)) && kill -0 "${pids[1]}" 2>/dev/null; then
    timeout 10 scancel --quiet --full --partition=debug 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] || break
      sleep 0.1
    done
  fi
  # slurmd, slurmctld, then munged (the others authenticate through it).
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    stop 10 "${pids[i]}"
  done
  for pid in "${pids[@]}" ${cmd_pid:+"$cmd_pid"}; do
    wait "$pid" 2>/dev/null || true
  done
  # Left only if the controller could not cancel them (slurmstepd ignores
  # TERM).
  # shellcheck disable=SC2046  # one PID per word
  stop 2 $(marked_pids)
  rm -rf "$run"
  [ "$created_workdir" = no ] || rmdir "$workdir" 2>/dev/null || true
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Print every log of the cluster to stderr.
dump_logs() {
  local log
  for log in "$run"/log/*; do
    [ -f "$log" ] || continue
    echo "----- $log" >&2
    cat "$log" >&2
  done
}

# A TCP port nothing on this machine uses, below the ephemeral range (so
# no outgoing connection takes it before the daemon binds it).
used_ports=" "
for table in /proc/net/tcp /proc/net/tcp6; do
  [ -r "$table" ] || continue
  while read -r _ local _; do
    [[ $local == *:* ]] || continue
    used_ports+="$((16#${local##*:})) "
  done < "$table"
done
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 12000))
    if [[ $used_ports != *" $port "* ]]; then
      used_ports+="$port "
      echo "$port"
      return
    fi
  done
}

host=$(hostname -s)
user=$(id -un)
cpus=$(nproc)
ctld_port=$(free_port)
slurmd_port=$(free_port)

# MUNGE: a fresh key, and munged in the foreground so that $! is its PID.
# munged also refuses a group- or world-writable directory (without the
# sticky bit) anywhere above its files; --force makes that a warning: the
# directories above WORKDIR (a CI workspace, a home) are not this script's
# to change, and the key protects nothing beyond this run.
dd if=/dev/urandom of="$run/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$run/munge/munge.key"
socket=$run/munge/munge.socket
setsid munged --foreground --force --socket="$socket" --key-file="$run/munge/munge.key" \
       --log-file="$run/log/munged.log" --pid-file="$run/munge/munged.pid" \
       --seed-file="$run/munge/munged.seed" --num-threads=2 \
       </dev/null >>"$run/log/munged.log" 2>&1 &
pids+=("$!")

# An empty SPANK stack, so that Slurm does not read /etc/slurm/plugstack.conf.
: > "$run/plugstack.conf"
conf=$run/slurm.conf
cat > "$conf" <<EOF
# Generated by tests/slurm/with_cluster.sh: a throwaway single-node cluster.
ClusterName=twice
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
# No cgroups: process tracking by parent PID, no task binding, no accounting.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
PlugStackConfig=$run/plugstack.conf
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# Start a batch job as soon as it is submitted, not up to 3 s later.
SchedulerParameters=batch_sched_delay=0
# sbatch --wait sleeps 2 s before its first poll, then 8 s, then 32 s,
# as long as the sleep is under MinJobAge/2 (default 300 s), so that a
# finished job is not purged before it looks (Slurm 22.05
# src/sbatch/sbatch.c, _job_wait). At 4 s it polls every 2 s.
MinJobAge=4
ReturnToService=2
StateSaveLocation=$run/state
SlurmdSpoolDir=$run/spool
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
SlurmctldLogFile=$run/log/slurmctld.log
SlurmdLogFile=$run/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf
export TWICE_SLURM_NODE=$host

# Slurm daemons in the foreground (-D) so that $! is their PID; -c: a cold
# start, no state to recover. Each daemon gets a session of its own
# (setsid), so that a signal to the caller's process group (Ctrl-C,
# timeout(1)) reaches this script, which cancels the jobs while the
# controller still runs, and not the daemons first.
setsid slurmctld -D -c -f "$conf" </dev/null >>"$run/log/slurmctld.out" 2>&1 &
pids+=("$!")
setsid slurmd -D -f "$conf" </dev/null >>"$run/log/slurmd.out" 2>&1 &
pids+=("$!")

# Up when the node is idle; a daemon that exits is a failure at once.
started=$(date +%s%N)
deadline=$((SECONDS + 60))
up=no
while ((SECONDS < deadline)); do
  for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "with_cluster: a daemon (PID $pid) exited while the cluster was starting" >&2
      break 2
    fi
  done
  if [ "$(timeout 5 sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ]; then
    up=yes
    break
  fi
  sleep 0.2
done
if [ "$up" = no ]; then
  echo "with_cluster: the cluster did not come up; node state: $(timeout 5 sinfo -h -o '%t %E' 2>&1)" >&2
  echo "----- $conf" >&2
  cat "$conf" >&2
  dump_logs
  exit 1
fi

echo "with_cluster: node $host idle $((($(date +%s%N) - started) / 1000000)) ms after the daemons started" >&2

status=0
"$@" &
cmd_pid=$!
wait "$cmd_pid" || status=$?
cmd_pid=
if ((status != 0)); then
  echo "with_cluster: '$*' exited with $status; the cluster's logs follow" >&2
  dump_logs
fi
exit "$status"
