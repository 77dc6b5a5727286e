public import MediaCore
