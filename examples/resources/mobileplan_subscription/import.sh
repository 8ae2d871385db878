# The import id is the subscription id as the service gives it
# (in the emulator, sub_ followed by 16 hex digits).
terraform import mobileplan_subscription.example sub_0123456789abcdef
