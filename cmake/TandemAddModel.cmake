# tandem_add_model: compile a model with tandemc at build time into a static
# library, the way tfcompile's tf_library does.
#
#   tandem_add_model(<target>
#     MODEL <file.onnx|file.mlir>   the model (relative to the current source
#                                   directory)
#     [NAME <c-identifier>]         symbol prefix (tandemc --name): the
#                                   header is NAME.h and declares
#                                   NAME_create / NAME_run / NAME_destroy;
#                                   default: the target name, if it is a C
#                                   identifier
#     [HEADER_DIR <dir>]            where NAME.h goes (relative to the
#                                   current binary directory; default:
#                                   <current binary dir>/<target>)
#     [TANDEMC_ARGS <flag>...])     more tandemc flags, e.g. --cpu=x86-64-v3
#                                   or --input-shape=x=1x3x224x224
#
# <target> is a STATIC library holding the compiled model. Its interface
# brings the header's directory and Tandem::tandem_runtime (with threads,
# libm and libstdc++), so `target_link_libraries(app PRIVATE <target>)` is
# all an application needs. tandemc runs again when the model file or
# tandemc changes.
#
# Needs the Tandem::tandemc and Tandem::tandem_runtime targets:
# find_package(Tandem) brings them, and Tandem's own build defines them.

include_guard(GLOBAL)

function(tandem_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "MODEL;NAME;HEADER_DIR"
                        "TANDEMC_ARGS")
  set(where "tandem_add_model(${target})")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${where}: unexpected arguments "
                        "'${ARG_UNPARSED_ARGUMENTS}' (expected MODEL, NAME, "
                        "HEADER_DIR, TANDEMC_ARGS)")
  endif()
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "${where}: MODEL is required: the .onnx or .mlir "
                        "file to compile (MODEL path/to/model.onnx)")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model}")
    message(FATAL_ERROR "${where}: MODEL file '${model}' does not exist")
  endif()
  if(IS_DIRECTORY "${model}")
    message(FATAL_ERROR "${where}: MODEL '${model}' is a directory, not a "
                        "model file")
  endif()
  if(NOT model MATCHES "\\.(onnx|mlir)$")
    message(FATAL_ERROR "${where}: MODEL '${model}' must be a .onnx or .mlir "
                        "file")
  endif()

  set(name "${ARG_NAME}")
  if(NOT name)
    set(name "${target}")
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    if(ARG_NAME)
      message(FATAL_ERROR "${where}: NAME '${name}' is not a C identifier")
    endif()
    message(FATAL_ERROR "${where}: the target name is not a C identifier; "
                        "give the model's symbol prefix with NAME <name>")
  endif()

  if(NOT TARGET Tandem::tandemc OR NOT TARGET Tandem::tandem_runtime)
    message(FATAL_ERROR "${where}: no Tandem::tandemc / "
                        "Tandem::tandem_runtime targets; call "
                        "find_package(Tandem REQUIRED) first")
  endif()

  set(header_dir "${ARG_HEADER_DIR}")
  if(NOT header_dir)
    set(header_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  endif()
  get_filename_component(header_dir "${header_dir}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  set(object "${CMAKE_CURRENT_BINARY_DIR}/${target}.dir/${name}.o")
  set(header "${header_dir}/${name}.h")
  file(MAKE_DIRECTORY "${header_dir}" "${CMAKE_CURRENT_BINARY_DIR}/${target}.dir")

  add_custom_command(
    OUTPUT "${object}" "${header}"
    COMMAND Tandem::tandemc "${model}" --emit=obj "--name=${name}"
            -o "${object}" "--header=${header}" ${ARG_TANDEMC_ARGS}
    DEPENDS "${model}" Tandem::tandemc
    COMMENT "Compiling model ${ARG_MODEL} with tandemc (${name}.o, ${name}.h)"
    VERBATIM)
  set_source_files_properties("${object}" PROPERTIES
    EXTERNAL_OBJECT TRUE GENERATED TRUE)

  add_library(${target} STATIC "${object}" "${header}")
  # Only an object file: pick a linker language the project has enabled.
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("C" IN_LIST languages)
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE C)
  else()
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
  endif()
  find_package(Threads REQUIRED)
  target_include_directories(${target} INTERFACE "${header_dir}")
  target_link_libraries(${target} INTERFACE Tandem::tandem_runtime
                        Threads::Threads m)
endfunction()
