#!/usr/bin/env bash
# slurm-single-node.sh installs (Debian's slurm-wlm and munge) and starts a
# Slurm cluster of one node on 127.0.0.1: munged, slurmctld and slurmd,
# with their state in $SLURM_DIR (default /tmp/warcdedup-slurm). It waits
# until the node takes jobs. Run as root, or with sudo available.
set -euo pipefail
dir=${SLURM_DIR:-/tmp/warcdedup-slurm}
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
if grep -qE '^(idle|mixed|allocated)' <<<"$(sinfo -h -o %T 2>/dev/null || true)"; then
	exit 0 # running already
fi
$sudo mkdir -p "$dir"/{state,spool,log} /etc/slurm /run/munge /var/log/munge /var/lib/munge /etc/munge
if [ ! -s /etc/munge/munge.key ]; then
	$sudo sh -c 'dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null'
fi
if id munge >/dev/null 2>&1; then
	$sudo chown munge:munge /etc/munge/munge.key /run/munge /var/log/munge /var/lib/munge
	$sudo chmod 0400 /etc/munge/munge.key
	if [ -z "$sudo" ]; then
		pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
	else
		pgrep -x munged >/dev/null || sudo -u munge /usr/sbin/munged
	fi
else
	$sudo chmod 0400 /etc/munge/munge.key
	pgrep -x munged >/dev/null || $sudo /usr/sbin/munged --force
fi
cpus=$(nproc)
mem=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10))
$sudo tee /etc/slurm/slurm.conf >/dev/null <<CONF
ClusterName=warcdedup
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SchedulerType=sched/backfill
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
pgrep -x slurmctld >/dev/null || $sudo /usr/sbin/slurmctld
pgrep -x slurmd >/dev/null || $sudo /usr/sbin/slurmd
for _ in $(seq 60); do
	if grep -qE '^(idle|mixed|allocated)' <<<"$(sinfo -h -o %T 2>/dev/null || true)"; then
		exit 0
	fi
	sleep 1
done
echo "slurm-single-node.sh: the node did not come up; logs in $dir/log" >&2
sinfo >&2 || true
exit 1
