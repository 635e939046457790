import sys
from pathlib import Path

# The fake server helper sits beside the tests.
sys.path.insert(0, str(Path(__file__).parent))
