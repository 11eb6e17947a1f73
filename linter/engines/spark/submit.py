"""The `spark-submit` entry point of the estate job.

    spark-submit --master yarn --deploy-mode client \\
        "$(python -c 'import linter.engines.spark.submit as s; print(s.__file__)')" \\
        inventory/ --output hdfs:///exlint/findings

Takes the same arguments as `exlint estate` (without --master/--remote: the
master, resources and settings come from spark-submit, whose session is used
as is). The executors need exlint installed (or shipped with --py-files) to
parse YAML and JSON.
"""
from __future__ import annotations

import os
import sys


def main(argv=None) -> None:
    from linter.engines.spark.command import estate_command

    os.environ["EXLINT_SPARK_SUBMITTED"] = "1"
    estate_command.main(args=list(sys.argv[1:] if argv is None else argv), prog_name="exlint estate (spark-submit)")


if __name__ == "__main__":
    main()
