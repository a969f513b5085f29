package io.periodtables.verification;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Stops the job, then deletes what the run created (or, with {@code --keep}, says how); once, from
 * whichever thread comes first: the run's end or Ctrl-C (a shutdown hook).
 */
final class RunCleanup {
    private final RunResources resources;
    private final boolean keep;
    private final AtomicBoolean done = new AtomicBoolean();
    private volatile JobUnderTest job;

    RunCleanup(RunResources resources, boolean keep) {
        this.resources = resources;
        this.keep = keep;
    }

    void job(JobUnderTest job) {
        this.job = job;
    }

    synchronized void run(PrintStream out) {
        if (!done.compareAndSet(false, true)) {
            return;
        }
        JobUnderTest j = job;
        if (j != null) {
            try {
                j.close();
            } catch (Exception e) {
                out.println("The job did not stop cleanly (" + e + "); deleting the run's resources anyway");
            }
        }
        if (keep) {
            out.println("Kept (--keep). To delete them:");
            resources.deleteCommands().forEach(c -> out.println("  " + c));
            return;
        }
        try {
            resources.delete(out);
            out.println("Cleanup: nothing of " + resources.run() + " is left.");
        } catch (PermissionDenied denied) {
            out.println(denied.line());
            out.println("Cleanup incomplete: ./verify --cleanup deletes what is left once allowed");
        } catch (RuntimeException e) {
            out.println("Cleanup incomplete (" + e + "): ./verify --cleanup deletes what is left");
        }
    }
}
