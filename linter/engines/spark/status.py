"""Where a Spark job is, for the progress display: the job's stages done so far,
and the stages it is running with their tasks. Read from Spark's
status tracker (the numbers its web UI shows) by the progress thread, so the
display moves as Spark works rather than jumping when a whole step ends.

Each step of the estate job runs its Spark jobs in a job group of its own
(``begin``); the stages counted are those of that group's jobs. A job that has
finished counts all its stages as done (stages whose data was cached are
skipped, never run, and would otherwise never count).
"""
from __future__ import annotations

import itertools


_GROUPS = itertools.count(1)


class SparkStages:
    def __init__(self, spark):
        self.context = spark.sparkContext
        self.tracker = self.context.statusTracker()
        self.group: str | None = None
        self.done = 0

    def begin(self, group: str, description: str) -> None:
        """Run this thread's next Spark jobs in ``group`` (Spark keeps it per thread).
        The group's name is new at every call: a session that ran earlier jobs (a
        long-lived one, a test session) would otherwise count them too, and the
        count would fall as Spark forgets old jobs (spark.ui.retainedJobs)."""
        self.group = f"exlint-{group}-{next(_GROUPS)}"
        self.done = 0
        self.context.setJobGroup(self.group, f"exlint: {description}", False)

    def end(self) -> None:
        self.group = None
        self.context.setLocalProperty("spark.jobGroup.id", None)
        self.context.setLocalProperty("spark.job.description", None)

    def __call__(self):
        """``(stages done, None, what runs now)``, or None before any job."""
        group = self.group
        if group is None:
            return None
        done = planned = 0
        running = []
        for job_id in self.tracker.getJobIdsForGroup(group):
            job = self.tracker.getJobInfo(job_id)
            if job is None:
                continue
            stage_ids = list(job.stageIds)
            planned += len(stage_ids)
            if job.status == "SUCCEEDED":
                done += len(stage_ids)
                continue
            for stage_id in stage_ids:
                stage = self.tracker.getStageInfo(stage_id)
                if stage is None:
                    continue
                if stage.numTasks and stage.numCompletedTasks >= stage.numTasks:
                    done += 1
                elif stage.numActiveTasks or stage.numCompletedTasks:
                    running.append(stage)
        if not planned:
            return None
        detail = ", ".join(f"stage {s.stageId}: {s.numCompletedTasks}/{s.numTasks} tasks" for s in running[:2])
        # Spark plans each query's jobs only as the previous ones finish, so the
        # stages planned so far are no total: the count alone moves honestly, and
        # never backwards
        self.done = max(self.done, done)
        return self.done, None, detail


def follower(spark):
    """A SparkStages for the session, or None where Spark has no status tracker here (Spark Connect)."""
    try:
        return SparkStages(spark)
    except Exception:  # noqa: BLE001 - Spark Connect: no SparkContext in this process
        return None
