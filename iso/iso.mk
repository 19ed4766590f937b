ISO := $(BUILD)/fdkernel.iso
