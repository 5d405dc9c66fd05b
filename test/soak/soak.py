#!/usr/bin/python3
"""Crash-restart soak of Turnstile against a misbehaving API server.

Starts turnstile-apiserver (--insecure-http --data-dir, --faults SPEC) and
the turnstile controller, then runs a seeded random mix of steps: batch
Job creations in three LocalQueues -> three ClusterQueues of one cohort
(two flavors, borrowing limits, three priorities), completions and
deletions of jobs, ClusterQueue quota edits, kill -9 / restart of the
controller at random moments and kill -9 / restart of the API server from
its --data-dir.  After every step an invariant checker reads the API with
the header "X-Turnstile-Faults: off" (so its reads are never faulted) and
checks:

  quota      no ClusterQueue, and no cohort, holds more than quota and
             borrowing allow (sum of status.admission usage of the
             Workloads holding a flavor's quota, against that flavor's
             quota in effect when the newest of them was admitted, give or
             take --quota-lag seconds of the controller seeing an edit
             late; test/soak/quota_check.py)
  unsuspend  no Job runs (suspend false, not finished) without an
             admitted Workload
  stuck      no admitted Workload whose Job stays suspended longer than
             --grace seconds
  owner      every managed Job has exactly one Workload (none only for
             --grace seconds after creation), every Workload's Job exists
             (once --grace seconds passed)
and at quiescence (every --quiesce-every steps and at the end, the
controller running, the driver idle) within --quiesce-timeout seconds:
  status     ClusterQueue status.flavorsReservation equals the sum of the
             Workloads holding quota
  fits       every pending Workload that fits in its ClusterQueue
             (quota and cohort) is admitted.
and at the end:
  stop       both processes stop on SIGTERM by themselves, in time, with
             exit 0 (the controller once it has logged its start).

Prints the counts (steps, faults injected per kind, restarts, checks,
violations) and exits 1 when there is a violation, naming the objects.

--wrapper CMD (default: $TS_BIN_WRAPPER), e.g. valgrind, is put before both
binaries; its logs go to $TS_WRAP_LOGS (default DIR/wrap, passed on in the
environment: valgrind's --log-file=%q{TS_WRAP_LOGS}/vg-%p.log), and a log
with a report in it is a violation ("wrapper").  Start and stop waits are
longer under a wrapper.  $TS_SOAK_ARGS is appended to the arguments (so it
wins), for make targets that run a shorter or slower soak.
The driver's own writes carry the exemption header too: it plays the
users, the faults are for the controller.
"""
import argparse
import calendar
import http.client
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quota_check  # noqa: E402

NS = "soak"
KQ = "/apis/kueue.x-k8s.io/v1beta2"
CQS = ["cq-a", "cq-b", "cq-c"]
FLAVORS = ["on-demand", "spot"]
PRIOS = [None, "low", "high"]
EXEMPT = {"X-Turnstile-Faults": "off"}

SUFFIX = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000),
          "": Fraction(1), "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9),
          "T": Fraction(10**12), "Ki": Fraction(2**10), "Mi": Fraction(2**20),
          "Gi": Fraction(2**30), "Ti": Fraction(2**40)}


def qty(s):
    s = str(s)
    for suf in sorted(SUFFIX, key=len, reverse=True):
        if suf and s.endswith(suf):
            return Fraction(s[: -len(suf)]) * SUFFIX[suf]
    return Fraction(s)


class Api:
    """Plain HTTP to the server, exempt from faults; reconnects."""

    def __init__(self, port):
        self.port = port
        self.conn = None

    def req(self, method, path, body=None, ctype="application/json", tries=50):
        data = json.dumps(body) if body is not None else None
        headers = dict(EXEMPT)
        if data is not None:
            headers["Content-Type"] = ctype
        for _ in range(tries):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
                self.conn.request(method, path, data, headers)
                r = self.conn.getresponse()
                raw = r.read()
                return r.status, (json.loads(raw) if raw else None)
            except (OSError, http.client.HTTPException):
                self.conn = None
                time.sleep(0.1)
        raise RuntimeError(f"{method} {path}: server unreachable")

    def ok(self, method, path, body=None, ctype="application/json", allow=()):
        st, obj = self.req(method, path, body, ctype)
        if st >= 300 and st not in allow:
            raise RuntimeError(f"{method} {path}: {st} {obj}")
        return st, obj

    def items(self, path):
        return self.ok("GET", path)[1].get("items", [])


def cond(obj, typ):
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == typ:
            return c
    return None


def conds(obj):
    """The conditions in short, for a violation's message."""
    return "; ".join(f"{c.get('type')}={c.get('status')}/{c.get('reason')}: {c.get('message', '')[:120]}"
                     for c in (obj.get("status") or {}).get("conditions") or [])


def is_true(obj, typ):
    c = cond(obj, typ)
    return c is not None and c.get("status") == "True"


def ts(s):
    return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ")) if s else 0


class Soak:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.dir = a.dir
        self.port = 0
        self.as_proc = None
        self.ctl_proc = None
        self.ctl_log_at = 0
        self.api = None
        self.n = dict(steps=0, created=0, completed=0, deleted=0, quota_edits=0,
                      ctl_restarts=0, as_restarts=0, checks=0, quiescences=0, violations=0)
        self.faults = {}
        self.seq = 0
        self.quota = {}  # cq -> list of (time, {flavor: cpu nominal})
        self.first_missing = {}  # job uid -> time first seen without a Workload
        self.first_orphan = {}
        self.first_stuck = {}
        self.admitted_seen = set()  # Workload uids seen holding quota
        self.max_running = 0
        self.violations = []
        self.log = open(os.path.join(a.dir, "steps.log"), "w", buffering=1)
        self.ctl_lock = threading.Lock()  # the storm thread restarts the controller too
        self.storm_left = a.storm
        self.storm_stop = False
        self.storm_gap = 0.0  # the longest kill-to-restart
        self.wrap = shlex.split(a.wrapper)
        self.slow = 8 if self.wrap else 1  # valgrind: 10-50x the CPU per request
        self.env = dict(os.environ)
        self.env.setdefault("TS_WRAP_LOGS", os.path.join(a.dir, "wrap"))
        os.makedirs(self.env["TS_WRAP_LOGS"], exist_ok=True)

    def note(self, what):
        self.log.write(f"{time.time():.3f} step={self.n['steps']} {what}\n")

    # --- processes -------------------------------------------------------
    def start_apiserver(self):
        port = self.port or 0
        out = open(os.path.join(self.dir, "server.out"), "w")
        log = open(os.path.join(self.dir, "server.log"), "a")
        args = [self.a.bin + "/turnstile-apiserver", "--listen", f"127.0.0.1:{port}",
                "--insecure-http", "--data-dir", os.path.join(self.dir, "data"),
                "--kubeconfig-out", os.path.join(self.dir, "kc"), "--no-access-log"]
        if self.a.faults:
            # a new seed per incarnation: the same run, not the same faults again
            args += ["--faults", f"{self.a.faults},seed={self.a.seed * 1000 + self.n['as_restarts']}"]
        self.as_proc = subprocess.Popen(self.wrap + args, stdout=out, stderr=log, env=self.env)
        deadline = time.time() + 30 * self.slow
        while time.time() < deadline:
            with open(os.path.join(self.dir, "server.out")) as f:
                for line in f:
                    if line.startswith("turnstile-apiserver: serving on "):
                        self.port = int(line.rsplit(":", 1)[1])
            if self.port and self.as_proc.poll() is None:
                try:
                    c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                    c.request("GET", "/readyz")
                    if c.getresponse().status == 200:
                        self.api = Api(self.port)
                        return
                except OSError:
                    pass
            if self.as_proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("turnstile-apiserver did not start; see server.log")

    def collect_faults(self):
        if not self.a.faults or self.as_proc is None:
            return
        try:
            st, obj = self.api.req("GET", "/debug/faults", tries=3)
        except RuntimeError:
            return
        if st == 200 and obj:
            self.last_faults = obj.get("injected", {})

    def bank_faults(self):
        for k, v in getattr(self, "last_faults", {}).items():
            self.faults[k] = self.faults.get(k, 0) + v
        self.last_faults = {}

    def kill_apiserver(self):
        self.collect_faults()  # counts die with the process: take them first
        self.as_proc.send_signal(signal.SIGKILL)
        self.as_proc.wait()
        self.bank_faults()
        self.start_apiserver()
        self.n["as_restarts"] += 1
        self.note("apiserver killed and restarted")

    def start_controller(self):
        log = open(os.path.join(self.dir, "ctl.log"), "a")
        self.ctl_log_at = os.path.getsize(log.name)  # where the newest one's lines begin
        self.ctl_proc = subprocess.Popen(
            self.wrap + [self.a.bin + "/turnstile", "--kubeconfig", os.path.join(self.dir, "kc"),
                         "--metrics-bind-address", "0", "--visibility-bind-address", "0",
                         # its start fence (no leader election) is a Lease there
                         "--lease-namespace", NS],
            stdout=log, stderr=log, env=self.env)

    def kill_controller(self):
        time.sleep(self.rng.random() * 0.3)  # a random moment of its work
        with self.ctl_lock:
            self.ctl_proc.send_signal(signal.SIGKILL)
            self.ctl_proc.wait()
            self.n["ctl_restarts"] += 1
            self.note("controller killed")
            self.start_controller()

    def storm(self):
        """--storm N: a thread kills the controller (SIGKILL) at a random
        moment of its first --storm-life seconds and starts the next one
        within 100 ms, N times, while the steps go on (jobs created,
        completed, deleted, the checker after each step)."""
        rng = random.Random(self.a.seed * 7919)
        while self.storm_left > 0 and not self.storm_stop:
            time.sleep(rng.random() * self.a.storm_life)
            with self.ctl_lock:
                if self.storm_stop:
                    break
                self.ctl_proc.send_signal(signal.SIGKILL)
                self.ctl_proc.wait()
                t0 = time.time()
                # a random pause of up to 50 ms: the other 50 ms of the
                # promised 100 are for fork and exec on a loaded machine
                time.sleep(rng.random() * 0.05)
                self.start_controller()
                self.n["ctl_restarts"] += 1
                self.storm_left -= 1
                self.storm_gap = max(self.storm_gap, time.time() - t0)
            self.note("storm: controller killed and restarted")

    def ctl_started(self):
        """Whether the newest controller has logged its start (it has its
        signal handling then; a SIGTERM before that just ends it)."""
        with open(os.path.join(self.dir, "ctl.log"), "rb") as f:
            f.seek(self.ctl_log_at)
            return b"controller: started against" in f.read()

    def stop(self):
        """SIGTERM both; each must stop by itself, in time, with exit 0
        (its drain, and a wrapper's leak check, ran)."""
        deadline = time.time() + 30 * self.slow
        while self.ctl_proc and self.ctl_proc.poll() is None and not self.ctl_started() \
                and time.time() < deadline:
            time.sleep(0.1)
        for p in (self.ctl_proc, self.as_proc):
            if p and p.poll() is None:
                name = os.path.basename(p.args[len(self.wrap)])
                if p is self.as_proc:
                    self.collect_faults()
                p.send_signal(signal.SIGTERM)
                t0 = time.time()
                try:
                    p.wait(10 * self.slow)
                    self.note(f"{name} stopped in {time.time() - t0:.1f} s, exit {p.returncode}")
                    if p.returncode != 0:
                        self.violation("stop", f"{name} exited {p.returncode} on SIGTERM")
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                    self.violation("stop", f"{name} did not stop on SIGTERM within "
                                           f"{10 * self.slow} s")
        self.bank_faults()

    def check_wrapper_logs(self):
        """A report in a wrapper's log (valgrind -q writes only those;
        warnings and leaks that are no errors excepted) is a violation."""
        d = self.env["TS_WRAP_LOGS"]
        skip = re.compile(r"^==\d+== +(Warning|WARNING|.* (possibly lost|still reachable) in loss record)")
        for f in sorted(os.listdir(d)):
            with open(os.path.join(d, f), errors="replace") as fh:
                lines = fh.read().splitlines()
            reports = [ln for ln in lines if re.match(r"^==\d+== \S", ln) and not skip.match(ln)]
            if reports:
                self.violation("wrapper", f"{os.path.join(d, f)}: {len(reports)} report(s), "
                                          f"first: {reports[0]}")

    # --- objects -------------------------------------------------------------
    def setup(self):
        import yaml

        api = self.api
        crd_dir = os.path.join(self.a.root, "crds")
        for f in sorted(os.listdir(crd_dir)):
            if not f.endswith(".yaml") or f == "Kustomization":
                continue
            for doc in yaml.safe_load_all(open(os.path.join(crd_dir, f))):
                if doc:
                    api.ok("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           doc, allow=(409,))
        deadline = time.time() + 30
        while api.req("GET", KQ + "/clusterqueues")[0] != 200:
            if time.time() > deadline:
                raise RuntimeError("Kueue CRDs not served")
            time.sleep(0.1)
        api.ok("POST", "/api/v1/namespaces", {"metadata": {"name": NS}}, allow=(409,))
        for f in FLAVORS:
            api.ok("POST", KQ + "/resourceflavors",
                   {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
                    "metadata": {"name": f}, "spec": {"nodeLabels": {"pool": f}}}, allow=(409,))
        for name, value in (("low", 10), ("high", 1000)):
            api.ok("POST", KQ + "/workloadpriorityclasses",
                   {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
                    "metadata": {"name": name}, "value": value}, allow=(409,))
        for i, cq in enumerate(CQS):
            quota = {"on-demand": 4 + i, "spot": 2}
            self.quota[cq] = [(0.0, quota)]
            api.ok("POST", KQ + "/clusterqueues", self.cq_obj(cq, quota), allow=(409,))
            api.ok("POST", f"{KQ}/namespaces/{NS}/localqueues",
                   {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                    "metadata": {"name": "lq-" + cq[3:], "namespace": NS},
                    "spec": {"clusterQueue": cq}}, allow=(409,))

    def borrowing_limit(self, cq):
        return 2 if cq == "cq-a" else None  # cq-a borrows at most 2 cpu per flavor

    def cq_obj(self, cq, quota):
        flavors = []
        for f in FLAVORS:
            res = [{"name": "cpu", "nominalQuota": str(quota[f])},
                   {"name": "memory", "nominalQuota": f"{4 * quota[f]}Gi"}]
            bl = self.borrowing_limit(cq)
            if bl is not None:
                res[0]["borrowingLimit"] = str(bl)
            flavors.append({"name": f, "resources": res})
        spec = {"cohortName": "pool", "namespaceSelector": {},
                "queueingStrategy": "BestEffortFIFO",
                "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": flavors}]}
        if cq != "cq-a" and self.a.preemption:  # eviction under faults and kills too
            spec["preemption"] = {"withinClusterQueue": "LowerPriority",
                                  "reclaimWithinCohort": "Any"}
        return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                "metadata": {"name": cq}, "spec": spec}

    # --- steps ---------------------------------------------------------------
    def jobs(self):
        return self.api.items(f"/apis/batch/v1/namespaces/{NS}/jobs")

    def create_job(self):
        self.seq += 1
        name = f"j{self.seq}"
        cq = self.rng.choice(CQS)
        prio = self.rng.choice(PRIOS)
        labels = {"kueue.x-k8s.io/queue-name": "lq-" + cq[3:]}
        if prio:
            labels["kueue.x-k8s.io/priority-class"] = prio
        cpu = self.rng.choice(["500m", "1", "1", "2", "3"])
        mem = self.rng.choice(["512Mi", "1Gi", "2Gi", "3Gi"])
        par = self.rng.choice([1, 1, 1, 2])
        job = {"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": name, "namespace": NS, "labels": labels},
               "spec": {"parallelism": par, "completions": par, "suspend": True,
                        "template": {"spec": {"restartPolicy": "Never", "containers": [
                            {"name": "c", "image": "busybox",
                             "resources": {"requests": {"cpu": cpu, "memory": mem}}}]}}}}
        self.api.ok("POST", f"/apis/batch/v1/namespaces/{NS}/jobs", job)
        self.note(f"create job {name} queue={cq} prio={prio} cpu={cpu} mem={mem} x{par}")
        self.n["created"] += 1

    def complete_job(self):
        running = [j for j in self.jobs() if j["spec"].get("suspend") is False
                   and not is_true(j, "Complete")]
        if not running:
            return self.create_job()
        j = self.rng.choice(running)
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        p = j["spec"].get("completions", 1)
        self.api.ok("PATCH", f"/apis/batch/v1/namespaces/{NS}/jobs/{j['metadata']['name']}/status",
                    {"status": {"succeeded": p, "startTime": now, "completionTime": now,
                                "conditions": [
                                    {"type": "SuccessCriteriaMet", "status": "True",
                                     "reason": "CompletionsReached", "lastTransitionTime": now},
                                    {"type": "Complete", "status": "True",
                                     "reason": "CompletionsReached", "lastTransitionTime": now}]}},
                    "application/merge-patch+json", allow=(404, 409))
        self.n["completed"] += 1
        self.note(f"complete job {j['metadata']['name']}")

    def delete_job(self):
        js = self.jobs()
        done = [j for j in js if is_true(j, "Complete")]
        pool = done if done and self.rng.random() < 0.7 else js
        if not pool:
            return self.create_job()
        j = self.rng.choice(pool)
        self.api.ok("DELETE", f"/apis/batch/v1/namespaces/{NS}/jobs/{j['metadata']['name']}",
                    {"kind": "DeleteOptions", "apiVersion": "v1",
                     "propagationPolicy": "Background"}, allow=(404,))
        self.n["deleted"] += 1
        self.note(f"delete job {j['metadata']['name']}")

    def edit_quota(self):
        cq = self.rng.choice(CQS)
        quota = dict(self.quota[cq][-1][1])
        quota["on-demand"] = self.rng.choice([2, 3, 4, 5, 6])
        st, obj = self.api.ok("GET", f"{KQ}/clusterqueues/{cq}")
        obj["spec"] = self.cq_obj(cq, quota)["spec"]
        st, _ = self.api.ok("PUT", f"{KQ}/clusterqueues/{cq}", obj, allow=(409,))
        if st < 300:
            self.quota[cq].append((time.time(), quota))
            self.n["quota_edits"] += 1
            self.note(f"quota {cq} {quota}")

    def step(self):
        s = self.n["steps"]
        r = self.rng.random()
        if s > 0 and s % self.a.restart_every == 0:
            self.kill_controller()
        elif r < 0.40:
            self.create_job()
        elif r < 0.60:
            self.complete_job()
        elif r < 0.70:
            self.delete_job()
        elif r < 0.74:
            self.edit_quota()
        elif r < 0.76:
            time.sleep(0.2)  # idle a moment
        elif r < 0.76 + self.a.apiserver_kill:
            self.kill_apiserver()
        elif r < 0.76 + self.a.apiserver_kill + self.a.controller_kill:
            self.kill_controller()
        else:
            time.sleep(self.rng.random() * 0.3)
        self.n["steps"] += 1

    # --- invariants ----------------------------------------------------------
    def violation(self, kind, msg):
        self.n["violations"] += 1
        self.violations.append(f"step {self.n['steps']}: {kind}: {msg}")
        self.note(f"VIOLATION {kind}: {msg}")
        print(f"VIOLATION step {self.n['steps']}: {kind}: {msg}", flush=True)

    def read(self):
        # Jobs before and after the Workloads: a Job whose resourceVersion
        # is the same in both reads did not change in between, so what it
        # says held while the Workloads were read.  (A Job read only before
        # could be stopped, and its quota released, before the Workloads
        # are read: a violation that never happened.)
        before = {j["metadata"]["uid"]: j["metadata"].get("resourceVersion") for j in self.jobs()}
        wls = self.api.items(f"{KQ}/namespaces/{NS}/workloads")
        cqs = {c["metadata"]["name"]: c for c in self.api.items(KQ + "/clusterqueues")}
        jobs = self.jobs()
        for j in jobs:
            j["_stable"] = before.get(j["metadata"]["uid"]) == j["metadata"].get("resourceVersion")
        return jobs, wls, cqs

    @staticmethod
    def usage(wl):
        """{(flavor, resource): Fraction} of a Workload's admission."""
        out = {}
        adm = (wl.get("status") or {}).get("admission") or {}
        for psa in adm.get("podSetAssignments") or []:
            for res, q in (psa.get("resourceUsage") or {}).items():
                f = (psa.get("flavors") or {}).get(res)
                out[(f, res)] = out.get((f, res), 0) + qty(q)
        return out

    @staticmethod
    def holds_quota(wl):
        return is_true(wl, "QuotaReserved") and not is_true(wl, "Finished")

    def sums(self, wls):
        """{cq: {(flavor, resource): usage}} of the Workloads holding quota."""
        use = {cq: {} for cq in CQS}
        for w in wls:
            cq = (w.get("status") or {}).get("admission", {}).get("clusterQueue")
            if self.holds_quota(w) and cq in use:
                for k, v in self.usage(w).items():
                    use[cq][k] = use[cq].get(k, 0) + v
        return use

    def check_quota(self, wls):
        # test/soak/quota_check.py states the model
        holders = []
        for w in wls:
            if self.holds_quota(w):
                self.admitted_seen.add(w["metadata"]["uid"])
                holders.append((w["metadata"]["name"], w["status"]["admission"].get("clusterQueue"),
                                ts(cond(w, "QuotaReserved").get("lastTransitionTime")),
                                self.usage(w)))
        bl = {cq: self.borrowing_limit(cq) for cq in CQS}
        for msg in quota_check.violations(self.quota, bl, holders, self.a.quota_lag):
            self.violation("quota", msg)

    def check_jobs(self, jobs, wls):
        now = time.time()
        # the liveness checks (a Workload missing, stuck or orphaned for
        # long) wait for the storm to end: controllers killed within their
        # first --storm-life seconds may never get as far as acting, which
        # is no fault; the safety checks (quota, one Workload per Job, no
        # Job running unadmitted) hold throughout
        live = not (self.a.storm and self.storm_left > 0)
        by_owner = {}
        for w in wls:
            for o in w["metadata"].get("ownerReferences") or []:
                by_owner.setdefault(o.get("uid"), []).append(w)
        job_uids = {j["metadata"]["uid"] for j in jobs}
        running = sum(1 for j in jobs if j["spec"].get("suspend") is False
                      and not is_true(j, "Complete"))
        self.max_running = max(self.max_running, running)
        for j in jobs:
            name, uid = j["metadata"]["name"], j["metadata"]["uid"]
            mine = [w for w in by_owner.get(uid, [])
                    if not w["metadata"].get("deletionTimestamp")]
            if len(mine) > 1:
                self.violation("owner", f"Job {name} has {len(mine)} Workloads: "
                                        f"{[w['metadata']['name'] for w in mine]}")
            late = self.persists(self.first_missing, uid, now, live and not mine
                                 and not j["metadata"].get("deletionTimestamp"))
            if late:
                self.violation("owner", f"Job {name} has no Workload after {late:.1f}s")
            finished = is_true(j, "Complete") or is_true(j, "Failed")
            admitted = [w for w in mine if is_true(w, "Admitted")]
            if j["spec"].get("suspend") is False and not finished and not admitted and \
                    j.get("_stable"):
                self.violation("unsuspend", f"Job {name} runs without an admitted Workload "
                                            f"(Workloads {[(w['metadata']['name'], conds(w)) for w in mine]})")
            # every Workload of the job, not only the admitted ones: one
            # that stops being admitted (evicted and released, pending
            # again) must restart the clock, or its next admission (which
            # is suspended for a moment, as is an evicted one until its
            # quota is released) reports the whole pending time as stuck
            for w in mine:
                late = self.persists(self.first_stuck, w["metadata"]["uid"], now,
                                     live and is_true(w, "Admitted")
                                     and j["spec"].get("suspend") is not False
                                     and not is_true(w, "Finished"))
                if late:
                    self.violation("stuck", f"Workload {w['metadata']['name']} admitted but "
                                            f"Job {name} suspended for {late:.1f}s")
        for w in wls:
            owners = [o.get("uid") for o in w["metadata"].get("ownerReferences") or []]
            late = self.persists(self.first_orphan, w["metadata"]["uid"], now,
                                 live and owners and not any(u in job_uids for u in owners))
            if late:
                self.violation("owner", f"Workload {w['metadata']['name']} outlived its Job "
                                        f"by {late:.1f}s")

    def persists(self, since, key, now, bad):
        """Seconds `bad` has held for key once that is past the grace
        period (then it is reported again only after another), else 0."""
        if not bad:
            since.pop(key, None)
            return 0
        first = since.setdefault(key, now)
        if now - first <= self.a.grace:
            return 0
        since[key] = now
        return now - first

    def check(self):
        jobs, wls, _ = self.read()
        self.check_quota(wls)
        self.check_jobs(jobs, wls)
        self.n["checks"] += 1

    # --- quiescence ----------------------------------------------------------
    def status_problems(self, wls, cqs):
        use = self.sums(wls)
        out = []
        for cq in CQS:
            got = {}
            for fu in (cqs.get(cq, {}).get("status") or {}).get("flavorsReservation") or []:
                for r in fu.get("resources") or []:
                    v = qty(r.get("total", "0"))
                    if v:
                        got[(fu["name"], r["name"])] = v
            want = {k: v for k, v in use[cq].items() if v}
            if got != want:
                out.append(f"ClusterQueue {cq} status.flavorsReservation "
                           f"{ {f'{k[0]}/{k[1]}': float(v) for k, v in got.items()} } != "
                           f"admitted Workloads' {({f'{k[0]}/{k[1]}': float(v) for k, v in want.items()})}")
        return out

    def fit_problems(self, wls):
        use = self.sums(wls)
        cur = {cq: self.quota[cq][-1][1] for cq in CQS}
        cohort_free = {}
        for f in FLAVORS:
            for res, unit in (("cpu", 1), ("memory", 4 * 2**30)):
                cap = sum(cur[cq][f] * unit for cq in CQS)
                used = sum(use[cq].get((f, res), 0) for cq in CQS)
                cohort_free[(f, res)] = cap - used
        out = []
        for w in wls:
            if self.holds_quota(w) or is_true(w, "Finished") or w["metadata"].get(
                    "deletionTimestamp"):
                continue
            cq = "cq-" + ((w.get("spec") or {}).get("queueName") or "lq-?")[3:]
            if cq not in CQS:
                continue
            need = {}
            for ps in (w.get("spec") or {}).get("podSets") or []:
                reqs = ((ps.get("template") or {}).get("spec") or {}).get("containers") or []
                for c in reqs:
                    for res, q in ((c.get("resources") or {}).get("requests") or {}).items():
                        need[res] = need.get(res, 0) + qty(q) * ps.get("count", 1)
            bl = self.borrowing_limit(cq)
            for f in FLAVORS:
                ok = True
                for res, unit in (("cpu", 1), ("memory", 4 * 2**30)):
                    free = cohort_free[(f, res)]
                    if bl is not None and res == "cpu":
                        free = min(free, cur[cq][f] + bl - use[cq].get((f, res), 0))
                    if need.get(res, 0) > free:
                        ok = False
                if ok:
                    out.append(f"pending Workload {w['metadata']['name']} ({cq}, needs "
                               f"{ {k: float(v) for k, v in need.items()} }) fits in flavor {f}; "
                               f"{conds(w)}")
                    break
        return out

    def quiesce(self):
        self.n["quiescences"] += 1
        deadline = time.time() + self.a.quiesce_timeout
        while True:
            jobs, wls, cqs = self.read()
            problems = self.status_problems(wls, cqs) + self.fit_problems(wls)
            if not problems:
                break
            if time.time() > deadline:
                for p in problems:
                    self.violation("quiescence", p)
                break
            time.sleep(0.3)
        self.check_quota(wls)
        self.check_jobs(jobs, wls)
        self.n["checks"] += 1

    # --- run -------------------------------------------------------------------
    def run(self):
        t0 = time.time()
        self.start_apiserver()
        self.setup()
        self.start_controller()
        storm = None
        if self.a.storm:
            storm = threading.Thread(target=self.storm, daemon=True)
            storm.start()
        try:
            while self.n["steps"] < self.a.steps or (storm and storm.is_alive()):
                if self.a.max_seconds and time.time() - t0 > self.a.max_seconds:
                    break
                t_step = time.time()
                self.step()
                if self.as_proc.poll() is not None:
                    raise RuntimeError("turnstile-apiserver died; see server.log")
                self.check()
                time.sleep(max(0.0, t_step + self.a.pace - time.time()))
                if self.n["steps"] % self.a.quiesce_every == 0:
                    self.quiesce()
            if storm:
                self.storm_stop = True
                storm.join()
            if self.ctl_proc.poll() is not None:
                self.violation("crash", "the controller exited by itself; see ctl.log")
                self.start_controller()
            self.quiesce()
            if self.n["ctl_restarts"] < self.a.min_restarts:
                self.violation("count", f"only {self.n['ctl_restarts']} controller restarts, "
                                        f"want {self.a.min_restarts}")
        finally:
            self.storm_stop = True
            self.stop()
            self.check_wrapper_logs()
        self.report(time.time() - t0)
        return 1 if self.n["violations"] else 0

    def report(self, secs):
        n = self.n
        print(f"soak: seed={self.a.seed} steps={n['steps']} seconds={secs:.1f}")
        print(f"soak: jobs created={n['created']} completed={n['completed']} "
              f"deleted={n['deleted']} quota_edits={n['quota_edits']}")
        print(f"soak: workloads admitted={len(self.admitted_seen)} "
              f"most jobs running at once={self.max_running}")
        print(f"soak: restarts controller={n['ctl_restarts']} apiserver={n['as_restarts']}"
              + (f" storm_left={self.storm_left} storm_longest_restart_ms={self.storm_gap * 1000:.0f}"
                 if self.a.storm else ""))
        total = sum(v for k, v in self.faults.items() if k != "latency")
        kinds = " ".join(f"{k}={v}" for k, v in sorted(self.faults.items()))
        print(f"soak: faults injected={total} {kinds}")
        print(f"soak: invariant checks={n['checks']} quiescences={n['quiescences']} "
              f"violations={n['violations']}")
        for v in self.violations[:50]:
            print("soak: " + v)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", default="build/bin")
    p.add_argument("--root", default=".")
    p.add_argument("--dir", required=True, help="work directory (logs, data)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--max-seconds", type=float, default=0, help="stop stepping after this")
    p.add_argument("--faults", default="write-409=0.02,write-429=0.02,write-500=0.02,"
                   "write-503=0.02,latency=0-5ms,gone=0.1,cut=0.01,watch-drop=0.01,"
                   "watch-drop-after=200,pause=1s@4s+15s")
    p.add_argument("--restart-every", type=int, default=9, help="controller kill every N steps")
    p.add_argument("--apiserver-kill", type=float, default=0.02, help="probability per step")
    p.add_argument("--controller-kill", type=float, default=0.14,
                   help="probability per step (besides every --restart-every steps)")
    p.add_argument("--min-restarts", type=int, default=0,
                   help="fail with fewer controller restarts than this")
    p.add_argument("--quota-lag", type=float, default=10,
                   help="seconds the controller may take to see a quota edit")
    p.add_argument("--grace", type=float, default=15)
    p.add_argument("--quiesce-every", type=int, default=100)
    p.add_argument("--preemption", action="store_true",
                   help="cq-b and cq-c preempt (LowerPriority, reclaim Any); see docs/reliability.md")
    p.add_argument("--quiesce-timeout", type=float, default=30)
    p.add_argument("--pace", type=float, default=0,
                   help="seconds a step takes at least (a slow controller gets time between kills)")
    p.add_argument("--storm", type=int, default=0,
                   help="kill and restart (within 100 ms) the controller this many times, "
                        "from a thread, while the steps go on (at least --steps of them)")
    p.add_argument("--storm-life", type=float, default=0.3,
                   help="seconds a controller of the storm lives at most")
    p.add_argument("--wrapper", default=os.environ.get("TS_BIN_WRAPPER", ""),
                   help="command put before the binaries, e.g. valgrind (default $TS_BIN_WRAPPER)")
    a = p.parse_args(sys.argv[1:] + shlex.split(os.environ.get("TS_SOAK_ARGS", "")))
    os.makedirs(a.dir, exist_ok=True)
    # SIGTERM (test/soak/load.sh stops its pair so) ends the run through
    # run()'s finally: both servers stopped, none left behind
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(Soak(a).run())


if __name__ == "__main__":
    main()
