# The import id is the subscription id, as the service gives it. The emulator
# makes ids of the form sub_ followed by hex digits; a real service may use any
# form, so copy the id from the service or from the mobileplan_subscriptions
# data source.
terraform import mobileplan_subscription.example sub_0123456789abcdef
