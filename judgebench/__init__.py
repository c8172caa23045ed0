"""judgebench: how well do LLM judges and reward models judge code?"""

import os

__version__ = "0.1.0"

# litellm downloads a model price map at import time unless told not to; offline that costs seconds
# of retries. Its bundled copy is what we use for cost estimates anyway.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
